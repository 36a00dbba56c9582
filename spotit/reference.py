"""A reference of everything SpotIt encodes, generated from the encoding registries.

The scalar and window functions, their arities, argument kinds and result kinds
come from ``spotit.encodings.registry`` (``FUNCTIONS``, ``WINDOW_FUNCTIONS``); the
IR operators from the classes registered there (``SCALAR``, ``RELATIONAL``) and
their docstrings; the refusals from the ``Unsupported(...)`` messages of the
binder and the encodings, read from their source, and from each function's
``differs_in``. So the reference cannot drift from what the encoder does:
``tests/test_reference.py`` fails when ``docs/sql-reference.md`` is stale.

    python -m spotit.reference                                    # a plain-text table
    python -m spotit.reference --write docs/sql-reference.md      # regenerate the doc
    python -m spotit.reference --check docs/sql-reference.md      # exit 1 when stale
"""

from __future__ import annotations

import argparse
import ast
import dataclasses
import importlib
import pkgutil
import re
import sys
from pathlib import Path

import spotit.encodings  # runs every registration before the registries are read
from spotit.encodings.registry import (
    FUNCTIONS,
    RELATIONAL,
    RESULT_KINDS,
    SCALAR,
    WINDOW_FUNCTIONS,
    FunctionSpec,
    WindowFunctionSpec,
    differing_functions,
)

DOC_PATH = "docs/sql-reference.md"
REGENERATE = f"python -m spotit.reference --write {DOC_PATH}"

# encodings whose refusals are about comparing results, not about an SQL construct
_NOT_SQL = {"equivalence"}


# ---------------------------------------------------------------------- facts


@dataclasses.dataclass(frozen=True)
class _Function:
    name: str
    aliases: tuple[str, ...]
    arity: str
    arg_kinds: str
    returns: str
    encoding: str


def _arity(lo: int, hi: int | None) -> str:
    if hi is None:
        return f"{lo}+"
    return str(lo) if lo == hi else f"{lo}-{hi}"


def _kinds(kinds: tuple[str, ...], variadic: bool) -> str:
    if not kinds:
        return "-"
    return ", ".join(kinds) + ("..." if variadic else "")


def _alias(name: str) -> str:
    """An alias, with its arity where it has one of its own (IFNULL/2)."""
    own, canonical = FUNCTIONS[name], FUNCTIONS[FUNCTIONS[name].name]
    if (own.min_args, own.max_args) == (canonical.min_args, canonical.max_args):
        return name
    return f"{name}/{_arity(own.min_args, own.max_args)}"


def _functions() -> list[_Function]:
    # each function under its own name (an alias may have an arity of its own)
    specs: dict[str, FunctionSpec] = {s.name: FUNCTIONS[s.name] for s in FUNCTIONS.values()}
    return [
        _Function(s.name, tuple(_alias(a) for a in sorted(s.aliases)),
                  _arity(s.min_args, s.max_args),
                  _kinds(s.arg_kinds, s.max_args is None), s.returns,
                  "exact" if s.exact else "over-approximated")
        for _, s in sorted(specs.items())
    ]


def _windows() -> list[WindowFunctionSpec]:
    return [WINDOW_FUNCTIONS[n] for n in sorted(WINDOW_FUNCTIONS)]


def _forms() -> list[tuple[str, tuple[int, int | None], str]]:
    from spotit.frontend.binder import FUNCTION_FORMS

    return [(n, arity, form) for n, (arity, form) in sorted(FUNCTION_FORMS.items())]


def _aggregates() -> list[str]:
    from spotit.frontend.binder import AGGREGATES

    return sorted(AGGREGATES)


def _summary(cls: type) -> str:
    """The first sentence of the class's docstring ('' for a dataclass's generated one)."""
    doc = cls.__doc__ or ""
    if doc.startswith(f"{cls.__name__}("):
        return ""
    first = " ".join(doc.strip().split("\n\n")[0].split())
    m = re.search(r"(?<!\.)\.\s+(?=[A-Z`(])", first)
    return first[:m.start() + 1] if m else first


def _operators(table: dict[type, object]) -> list[tuple[str, str, str]]:
    """(class name, its fields, the summary of its docstring), by name."""
    return sorted(
        (c.__name__, ", ".join(f.name for f in dataclasses.fields(c))
         if dataclasses.is_dataclass(c) else "", _summary(c))
        for c in table
    )


def _placeholder(node: ast.expr, constants: dict[str, object]) -> str:
    """``<name>`` for a filled-in part: the name or attribute it reads (a module
    constant's value as it is), ``<...>`` when there is none to show."""
    if isinstance(node, ast.Name):
        value = constants.get(node.id)
        if node.id.isupper() and isinstance(value, int | str):
            return str(value)
        return f"<{node.id}>"
    if isinstance(node, ast.Attribute) and not node.attr.startswith("_"):
        return f"<{node.attr}>"
    if isinstance(node, ast.Call):  # x.upper() is x; len(x) is x
        if isinstance(node.func, ast.Attribute):
            return _placeholder(node.func.value, constants)
        if node.args:
            return _placeholder(node.args[0], constants)
    if isinstance(node, ast.BoolOp):  # x or 'default'
        return _placeholder(node.values[0], constants)
    return "<...>"


def _message(node: ast.expr, constants: dict[str, object]) -> str | None:
    """The text of an ``Unsupported`` message, ``<name>`` for what is filled in; None
    when nothing of it is written in the call."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.Name) and node.id.isupper() and \
            isinstance(constants.get(node.id), str):  # a message kept in a constant
        return constants[node.id]
    if isinstance(node, ast.JoinedStr):
        return "".join(v.value if isinstance(v, ast.Constant)
                       else _placeholder(v.value, constants)
                       for v in node.values if isinstance(v, ast.Constant | ast.FormattedValue))
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):  # an optional tail
        left = _message(node.left, constants)
        return None if left is None else left + (_message(node.right, constants) or "")
    return None


def _refusals(module: str) -> list[str]:
    """The messages of the ``Unsupported(...)`` that ``module`` raises, sorted."""
    mod = importlib.import_module(module)
    constants = vars(mod)
    out = set()
    for node in ast.walk(ast.parse(Path(mod.__file__).read_text(encoding="utf-8"))):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                and node.func.id == "Unsupported" and node.args):
            text = _message(node.args[0], constants)
            if text and re.search(r"[A-Za-z]", re.sub(r"<[^>]*>", "", text)):
                out.add(text)
    return sorted(out, key=lambda s: (s.lower(), s))


def _encoding_refusals() -> list[tuple[str, str]]:
    """(message, module) of the encodings' refusals."""
    out = set()
    for info in pkgutil.iter_modules(spotit.encodings.__path__):
        if info.name in _NOT_SQL:
            continue
        for text in _refusals(f"spotit.encodings.{info.name}"):
            out.add((text, info.name))
    return sorted(out, key=lambda m: (m[0].lower(), m))


def _dialect_refusals() -> list[tuple[str, str]]:
    """(function, the dialects where its meaning is not SQLite's) by name."""
    return [(name, "every dialect but SQLite" if "*" in where else ", ".join(sorted(where)))
            for name, where in sorted(differing_functions().items())]


# ---------------------------------------------------------------------- markdown


def _md_table(headers: list[str], rows: list[list[str]]) -> list[str]:
    out = ["| " + " | ".join(headers) + " |", "|" + "|".join("---" for _ in headers) + "|"]
    out += ["| " + " | ".join(c.replace("|", "\\|") for c in row) + " |" for row in rows]
    return out


def _code(s: str) -> str:
    return f"``{s}``" if "`" in s else f"`{s}`"


def _names(names: tuple[str, ...] | list[str]) -> str:
    return ", ".join(_code(n) for n in names) if names else "-"


def reference_markdown() -> str:
    """The reference as a Markdown document (docs/sql-reference.md)."""
    fns = _functions()
    counts = {k: sum(f.returns == k for f in fns) for k in RESULT_KINDS}
    out = [
        f"*Generated by `{REGENERATE}` from SpotIt's encoding registries; "
        "do not edit by hand.*",
        "",
        "# SQL reference: what SpotIt encodes",
        "",
        "SpotIt decides equivalence by SQLite's semantics. This page lists what the "
        "encoder models, read from its registries (`spotit/encodings/registry.py`), "
        "and what it refuses (the verdict is `unsupported: <construct>`).",
        "",
        "## Scalar functions",
        "",
        f"{len(fns)} functions ({len(FUNCTIONS)} names with the aliases). *Arity*: "
        "`n+` is n or more arguments. *Argument kinds* are the kinds the fuzz harness "
        "calls each position with (`...`: the last one repeats). *Returns*: the kind "
        "of a non-NULL result, `numeric` (INTEGER or REAL), `text`, or `any` (it "
        "depends on the arguments) -- "
        + ", ".join(f"{counts[k]} {k}" for k in RESULT_KINDS) + ". "
        "*Encoding*: `exact`, or `over-approximated`: the true value is always "
        "allowed, so a proof stays sound, but a counterexample may be spurious and "
        "is kept only once validated on SQLite.",
        "",
    ]
    out += _md_table(
        ["Name", "Aliases", "Arity", "Argument kinds", "Returns", "Encoding"],
        [[_code(f.name), _names(f.aliases), f.arity, f.arg_kinds, f.returns, f.encoding]
         for f in fns])
    out += ["", "Read as another form by the binder, as SQLite defines them:", ""]
    out += _md_table(["Name", "Arity", "Read as"],
                     [[_code(n), _arity(*a), _code(form)] for n, a, form in _forms()])
    out += [
        "",
        "## Aggregate functions",
        "",
        "With GROUP BY (or over all rows): " + _names(_aggregates()) + ".",
        "",
        "## Window functions",
        "",
        "Called with `OVER (...)`. *Frame*: whether the frame clause changes the "
        "value; *`*`*: whether `f(*)` is accepted.",
        "",
    ]
    out += _md_table(
        ["Name", "Arity", "Argument kinds", "Frame", "`*`"],
        [[_code(w.name), _arity(w.min_args, w.max_args), _kinds(w.arg_kinds, False),
          "yes" if w.frame else "no", "yes" if w.star else "no"] for w in _windows()])
    out += ["", "## IR operators", "",
            "Each query is bound to these operators, and each has exactly one encoding.",
            ""]
    for title, table in (("Scalar", SCALAR), ("Relational", RELATIONAL)):
        out += [f"### {title}", ""]
        out += [f"- `{name}({fields})`" + (f": {summary}" if summary else "")
                for name, fields, summary in _operators(table)]
        out.append("")
    out += [
        "## Refused",
        "",
        "A construct SpotIt does not model is refused, never approximated: the verdict "
        "is `unsupported: <message>`, one of the messages below (`<...>` is filled in).",
        "",
        "### By the binder (`spotit/frontend/binder.py`)",
        "",
    ]
    out += [f"- {_code(m)}" for m in _refusals("spotit.frontend.binder")]
    out += ["", "### By the encodings (`spotit/encodings/`)", "",
            "A function not in the tables above is refused as `function <name>()` (calls).",
            ""]
    out += [f"- {_code(m)} ({module})" for m, module in _encoding_refusals()]
    out += [
        "",
        "### In another dialect's SQL",
        "",
        "These functions mean something else outside SQLite, so a query of another "
        "dialect (`--dialect`) that calls them is refused (`differs_in=` in their "
        "registration; the other rules are in `docs/dialects.md`).",
        "",
    ]
    out += _md_table(["Function", "Refused in"],
                     [[_code(n), where] for n, where in _dialect_refusals()])
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------------- plain text


def _text_table(headers: list[str], rows: list[list[str]]) -> list[str]:
    widths = [max(len(r[i]) for r in [headers, *rows]) for i in range(len(headers))]

    def line(cells: list[str]) -> str:
        return "  ".join(c.ljust(w) for c, w in zip(cells, widths, strict=True)).rstrip()

    return [line(headers), line(["-" * w for w in widths]), *(line(r) for r in rows)]


def reference_text() -> str:
    """The same facts as ``reference_markdown``, as plain-text tables for a terminal."""
    out = ["SCALAR FUNCTIONS", ""]
    out += _text_table(
        ["NAME", "ALIASES", "ARITY", "ARGUMENT KINDS", "RETURNS", "ENCODING"],
        [[f.name, ", ".join(f.aliases) or "-", f.arity, f.arg_kinds, f.returns, f.encoding]
         for f in _functions()])
    out += ["", "READ AS ANOTHER FORM", ""]
    out += _text_table(["NAME", "ARITY", "READ AS"],
                       [[n, _arity(*a), form] for n, a, form in _forms()])
    out += ["", "AGGREGATE FUNCTIONS: " + ", ".join(_aggregates()), "", "WINDOW FUNCTIONS", ""]
    out += _text_table(
        ["NAME", "ARITY", "ARGUMENT KINDS", "FRAME", "STAR"],
        [[w.name, _arity(w.min_args, w.max_args), _kinds(w.arg_kinds, False),
          "yes" if w.frame else "no", "yes" if w.star else "no"] for w in _windows()])
    for title, table in (("SCALAR IR OPERATORS", SCALAR),
                         ("RELATIONAL IR OPERATORS", RELATIONAL)):
        out += ["", title, ""]
        out += _text_table(["OPERATOR", "FIELDS", "MEANING"],
                           [list(op) for op in _operators(table)])
    out += ["", "REFUSED (verdict 'unsupported: <message>')", ""]
    out += _text_table(
        ["WHERE", "MESSAGE"],
        [["binder", m] for m in _refusals("spotit.frontend.binder")]
        + [[f"encodings.{module}", m] for m, module in _encoding_refusals()])
    out += ["", "SQLITE-ONLY MEANING (refused in another dialect's SQL)", ""]
    out += _text_table(["FUNCTION", "REFUSED IN"], [list(r) for r in _dialect_refusals()])
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------------- command line


def _problem(path: Path) -> str | None:
    """Why ``path`` is not the current reference ("missing", "stale"), or None."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return "missing"
    return None if text == reference_markdown() else "stale"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m spotit.reference",
        description="The reference of what SpotIt encodes, from its registries "
                    "(without options: a plain-text table on stdout).")
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--write", metavar="PATH", help="write the Markdown reference to PATH")
    group.add_argument("--check", metavar="PATH",
                       help="exit 1 when PATH is not the current Markdown reference")
    args = parser.parse_args(argv)
    if args.write:
        Path(args.write).write_text(reference_markdown(), encoding="utf-8")
        return 0
    if args.check:
        problem = _problem(Path(args.check))
        if problem is not None:
            print(f"{args.check} is {problem}; regenerate it with: "
                  f"python -m spotit.reference --write {args.check}", file=sys.stderr)
            return 1
        return 0
    sys.stdout.write(reference_text())
    return 0


if __name__ == "__main__":
    sys.exit(main())
