"""Write the SMT-LIB 2.6 script of each bound, for any SMT-LIB solver.

The files are exactly the formulas SpotIt hands to z3 and cvc5, in the standard
benchmark form: ``(set-info :smt-lib-version 2.6)``, the narrowest standard logic
the formula needs (:mod:`spotit.smt.logic`), ``:source``, ``:category``, a
``:status`` only where it is known, then ``(check-sat)`` and ``(exit)``.
sat means "the queries differ on some database of at most k rows per table".
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from pathlib import Path

from pysmt.fnode import FNode

from spotit.encodings.equivalence import comparison
from spotit.pipeline import Checker, CheckOptions, coerce_schema, in_sqlite
from spotit.smt.logic import logic_of
from spotit.smt.printer import SmtLibWriter


def benchmark_script(assertions: Sequence[FNode], *, source: str, logic: str | None = None,
                     status: str | None = None, comments: Sequence[str] = ()) -> str:
    """A standalone SMT-LIB 2.6 benchmark file for ``assertions``.

    ``source`` goes into ``(set-info :source |...|)``: a quoted symbol cannot hold
    ``|`` or ``\\``, so those are written as the look-alikes U+00A6 and U+29F5 there
    (the comments keep the text exactly). ``status`` is ``sat``, ``unsat`` or None
    (unknown: no ``:status`` line, as SMT-LIB's benchmark library does).
    """
    logic = logic or logic_of(assertions)
    quoted = source.replace("|", "\u00a6").replace("\\", "\u29f5")
    lines = [
        "(set-info :smt-lib-version 2.6)",
        f"(set-logic {logic})",
        f"(set-info :source |{quoted}|)",
        '(set-info :category "industrial")',
    ]
    if status is not None:
        if status not in ("sat", "unsat"):
            raise ValueError(f"a status is sat or unsat, not {status!r}")
        lines.append(f"(set-info :status {status})")
    for comment in comments:
        lines.extend(f"; {line}".rstrip() for line in comment.splitlines() or [""])
    body = SmtLibWriter().commands(assertions)  # a fresh writer declares everything
    return "\n".join(lines) + "\n" + body + "(check-sat)\n(exit)\n"


def pair_source(gold: str, pred: str, k: int, semantics: str, **facts: object) -> str:
    """The ``:source`` text of one pair's file at bound k."""
    head = ", ".join(f"{name} {value}" for name, value in facts.items() if value is not None)
    return "\n".join([
        "SpotIt: bounded equivalence of SQL queries under SQLite's semantics.",
        f"sat: the queries differ on some database of at most k = {k} rows per table "
        f"({semantics} semantics).",
        *([head] if head else []),
        "gold: " + " ".join(gold.split()),
        "pred: " + " ".join(pred.split()),
    ])


def export_smtlib(schema, gold: str, pred: str, *, out_dir: str | Path, bound: int = 5,
                  semantics: str = "set", db_id: str | None = None,
                  now: datetime | None = None, dialect: str = "sqlite",
                  data: str = "declared", recursion_depth: int = 10) -> list[Path]:
    sch = coerce_schema(schema, db_id)
    # realistic: the declared domains, over a schema the caller augmented with constraints
    opts = CheckOptions(bound=bound, semantics=comparison(semantics),
                        data="declared" if data == "realistic" else data,
                        recursion_depth=recursion_depth)
    if now is not None:
        opts.now = now
    if dialect.strip().lower() != "sqlite":
        gold, pred = in_sqlite(gold, pred, dialect, sch, opts.semantics)
    checker = Checker(sch, opts)
    gold_plan = checker.plan(gold, "gold")
    pred_plan = checker.plan(pred, "pred")
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    for k in range(1, bound + 1):
        enc, assertions = checker.encode(k, gold_plan, pred_plan)
        comments = []
        if enc.approximations:
            comments.append("over-approximated (sat may be spurious): "
                            + ", ".join(sorted(enc.approximations)))
        text = benchmark_script(assertions, source=pair_source(gold, pred, k, semantics),
                                comments=comments)
        path = out / f"k{k}.smt2"
        path.write_text(text, encoding="utf-8")
        paths.append(path)
    return paths
