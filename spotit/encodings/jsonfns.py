"""SQLite's JSON extraction: ``json_extract(X, P, ...)``, ``X ->> P`` and ``X -> P``.

``json_extract(X, P)`` and ``X ->> P`` give the SQL value at path P of the JSON text X
(TEXT, INTEGER, REAL or NULL; an object or array as its JSON text), ``X -> P`` the JSON
text of it ('"Abakan"', '12', 'null'; NULL where P selects nothing). A path must be a
constant: '$...' as SQLite writes it; the arrows also take a label ``'en'`` (the path
'$.en') and an integer n >= 0 ('$[n]'). One path in two spellings is one function here.

Over-approximated (``exact=False``): each of the three is an uninterpreted function of
the text form of X, one per path (the same text, the same value), so a proof holds
whatever SQLite computes, and SQLite confirms every counterexample. Exact (the
registration says ``exact_range``, and the fuzz checks it) where X is a TEXT
``{"k1":J1,...,"kn":Jn}`` over the names the two queries read, in order, each J a
string without escapes or control characters, an integer of at most 18 characters, or
``null``: the search looks there first, so its counterexamples hold JSON that SQLite
reads as the model does (``{"en":"Abakan","ru":null}``).

Malformed JSON makes SQLite stop the query with an error ("malformed JSON"). No value
models that: as for SQLite's other run-time errors (docs/semantics.md), a database on
which a query stops is never a counterexample, and ``equivalent`` says nothing about
such databases.
"""

from __future__ import annotations

import hashlib
import re

from pysmt.typing import BOOL, INT, REAL, STRING

from spotit import concrete
from spotit.encodings import conversions as C
from spotit.encodings.encoder import Encoder
from spotit.encodings.registry import function
from spotit.encodings.values import Alt, Value, constant, null_value, text_value
from spotit.errors import Unsupported
from spotit.ir import scalar as S
from spotit.ir.types import INT64_MAX, INT64_MIN, StorageClass
from spotit.ir.walk import iter_exprs
from spotit.mutants import planted
from spotit.smt import ops

INT_C, REAL_C, TEXT_C = StorageClass.INTEGER, StorageClass.REAL, StorageClass.TEXT
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
VALUE, JSON = "value", "json"  # ->> and json_extract; ->


def path_of(op: str, p: Value) -> str | None:
    """The path ``p`` (a constant) as SQLite reads it after ``op``, spelled '$...'; None
    for a NULL path (the result is NULL). Refused: a path that is not a constant, one
    SQLite rejects, and labels other than a plain name or an index."""
    if not p.is_constant():
        raise Unsupported(f"JSON path that is not a constant ({op})")
    path = p.constant()
    if path is None:
        return None
    written = _written(op, path)
    if written is None:
        raise Unsupported(f"JSON path {path!r} after {op}")
    try:
        concrete.evaluate("json_extract('{}', ?)", (written,))
    except Exception as e:  # SQLite's "JSON path error near ..."
        raise Unsupported(f"JSON path {path!r} ({e})") from None
    return written


def _written(op: str, path) -> str | None:
    """``path`` after ``op`` spelled '$...' (the arrows' label 'en' is '$.en', their
    index n is '$[n]'); None for a label the encoding does not read."""
    arrow = op != "JSON_EXTRACT"
    if isinstance(path, str) and path.startswith("$"):
        return path
    if arrow and isinstance(path, str) and _NAME.match(path):
        return f"$.{path}"
    if arrow and isinstance(path, int) and path >= 0:
        return f"$[{path}]"
    return None


def _member(path: str) -> str | None:
    """The member name a path '$.name' reads (None for any other path)."""
    return path[2:] if path.startswith("$.") and _NAME.match(path[2:]) else None


def _key(kind: str, paths: tuple[str | None, ...]) -> str:
    spelled = (kind, *("\x01" if p is None else p for p in paths))
    digest = hashlib.sha1("\x00".join(spelled).encode()).hexdigest()[:12]
    return f"json_{kind}_{digest}"


def _sqlite(kind: str, paths: tuple[str | None, ...], text):
    """SQLite's value at ``text``; raises for malformed JSON."""
    if kind == JSON:
        return concrete.evaluate("? -> ?", (text, paths[0]))
    marks = ", ".join("?" * len(paths))
    return concrete.evaluate(f"json_extract(?, {marks})", (text, *paths))


def _free(enc: Encoder, kind: str, paths: tuple[str | None, ...], part: str, ty, s):
    """The uninterpreted ``part`` of the value at the text ``s``. No reading of SQLite's
    is learned for it: a fact of SQLite's at a text in the exact range would hide a
    wrong exact encoding from the fuzz (the range would look empty there)."""
    return enc.b.uf(_key(kind, paths) + "_" + part, ty, [s], [STRING])


# an integer of this many characters or fewer (its sign included) is within 64 bits
_SHORT_INTEGER = 18
TEXT_J, INT_J, NULL_J = 0, 1, 2  # what a member of an exactly read object holds


class _Object:
    """The exact range of the text ``s``: ``{"k1":J1,...,"kn":Jn}`` over the names the
    queries read (``EncoderOptions.json_names`` and this path's), in order, each J a
    string without escapes or control characters, an integer or ``null``. Built from
    its parts (not parsed: a solver finds such texts at once), one per text term."""

    def __init__(self, enc: Encoder, s, names: tuple[str, ...]):
        b = enc.b
        plain = ops.re_star(ops.re_union_all([
            ops.re_range(b.str(lo), b.str(hi))
            for lo, hi in ((" ", "!"), ("#", "["), ("]", chr(ops.MAX_CHAR)))]))
        self.members: dict[str, tuple] = {}
        spelled, exact = [], []
        digit = ops.re_range(b.str("0"), b.str("9"))
        integer = ops.re_concat(ops.re_opt(ops.str_to_re(b.str("-"))), ops.re_union(
            ops.str_to_re(b.str("0")), ops.re_concat(ops.re_range(b.str("1"), b.str("9")),
                                                     ops.re_star(digit))))
        for name in names:
            # an integer member is its digits, read (SMT-LIB's str.to_int of a text a
            # regular expression pins down: a solver spells an integer out slowly)
            kind, string, digits = (b.fresh("json_kind", INT), b.fresh("json_string", STRING),
                                    b.fresh("json_digits", STRING))
            negative = b.starts_with(digits, b.str("-"))
            magnitude = ops.str_to_int(b.ite(negative, b.substr(
                digits, b.int(1), b.str_len(digits)), digits))
            number = b.ite(negative, b.neg(magnitude), magnitude)
            self.members[name] = (kind, string, number, digits)
            spelled.append(b.ite(b.eq(kind, b.int(TEXT_J)), _quoted(b, string), b.ite(
                b.eq(kind, b.int(INT_J)), digits, b.str("null"))))
            exact += [b.le(b.int(TEXT_J), kind), b.le(kind, b.int(NULL_J)),
                      b.implies(b.eq(kind, b.int(TEXT_J)), ops.str_in_re(string, plain)),
                      b.implies(b.eq(kind, b.int(INT_J)), b.and_(
                          ops.str_in_re(digits, integer),
                          b.le(b.str_len(digits), b.int(_SHORT_INTEGER))))]
        text = b.str("{")
        for i, (name, j) in enumerate(zip(names, spelled, strict=True)):
            text = b.concat(b.concat(text, b.str(("," if i else "") + f'"{name}":')), j)
        self.exact = b.and_(b.eq(s, b.concat(text, b.str("}"))), *exact)


def _quoted(b, string):
    return b.concat(b.concat(b.str('"'), string), b.str('"'))


def _object(enc: Encoder, s, name: str) -> _Object:
    names = tuple(sorted({*enc.options.json_names, name}))
    key = (s, names)
    if key not in enc.json_objects:
        enc.json_objects[key] = _Object(enc, s, names)
    return enc.json_objects[key]


def _extracted(enc: Encoder, op: str, x: Value, paths: tuple[str, ...]) -> Value:
    kind = JSON if op == "->" else VALUE
    b = enc.b
    if x.is_constant() and x.constant() is not None:
        try:  # SQLite's own value (raises for malformed JSON)
            return constant(b, _sqlite(kind, paths, x.constant()))
        except Exception:
            pass
    t = C.to_text(enc, x)
    if not t.alts:
        return null_value(b)
    s = t.alts[0].term
    name = _member(paths[0]) if len(paths) == 1 else None
    # the exact range holds a TEXT (a number's text is never an object), stated on the
    # text itself: the text form of a number, equated with an object, slows a solver
    held = x.alt(TEXT_C)
    obj = _object(enc, held.term, name) if name is not None and held is not None else None
    inside = b.and_(held.guard, obj.exact) if obj else b.FALSE
    enc.approximate(f"{op}()", b.or_(t.null, inside) if obj else None)
    # the functions' values where SQLite's are known (a side fact, true of SQLite, not
    # a case split of every value: a solver finds the objects faster so)
    null = _free(enc, kind, paths, "null", BOOL, s)
    if kind == JSON or len(paths) > 1:
        text = _free(enc, kind, paths, "text", STRING, s)
        if obj is not None:
            j, string, _, digits = obj.members[name]
            shown = string if planted("json-arrow-unquoted") else _quoted(b, string)
            held = b.ite(b.eq(j, b.int(TEXT_J)), shown, b.ite(
                b.eq(j, b.int(INT_J)), digits, b.str("null")))
            enc.side.append(b.implies(inside, b.and_(b.not_(null), b.eq(text, held))))
        return text_value(b, text, b.or_(t.null, null))
    cls = _free(enc, VALUE, paths, "cls", INT, s)
    iv = _free(enc, VALUE, paths, "int", INT, s)
    if iv not in enc.ranged:  # SQLite's integers are 64-bit
        enc.ranged.add(iv)
        enc.side.append(b.and_(b.le(b.int(INT64_MIN), iv), b.le(iv, b.int(INT64_MAX))))
    text = _free(enc, VALUE, paths, "text", STRING, s)
    real = _free(enc, VALUE, paths, "real", REAL, s)
    if obj is not None:
        j, string, number, _ = obj.members[name]
        if planted("json-extract-quoted"):
            string = _quoted(b, string)
        enc.side.append(b.implies(inside, b.and_(
            b.iff(null, b.eq(j, b.int(NULL_J))),
            b.implies(b.eq(j, b.int(TEXT_J)), b.and_(b.eq(cls, b.int(2)), b.eq(text, string))),
            b.implies(b.eq(j, b.int(INT_J)), b.and_(b.eq(cls, b.int(0)), b.eq(iv, number))))))
    alts = (Alt(INT_C, b.le(cls, b.int(0)), iv), Alt(REAL_C, b.eq(cls, b.int(1)), real),
            Alt(TEXT_C, b.le(b.int(2), cls), text))
    return Value(b.or_(t.null, null), alts)


def json_names(*plans) -> tuple[str, ...]:
    """The member names the plans read with a path '$.name' (or the arrows' label
    'name'): the shape of the JSON texts the search tries first."""
    found: set[str] = set()
    for e, _ in iter_exprs(plans):
        if isinstance(e, S.Call) and e.name in ("JSON_EXTRACT", "->", "->>"):
            for p in e.args[1:]:
                written = _written(e.name, p.value) if isinstance(p, S.Const) else None
                if written is not None and (name := _member(written)) is not None:
                    found.add(name)
    return tuple(sorted(found))


@function("JSON_EXTRACT", arity=(1, None), arg_kinds=("json", "jsonpath"), exact=False,
          exact_range=True, returns="any", differs_in=("*",),
          mutants=("json-extract-quoted",))
def fn_json_extract(enc: Encoder, args: list[Value]) -> Value:
    """The SQL value at the path (one path), or the JSON array of the values at each
    (several); NULL for a NULL text or path."""
    if len(args) == 1:
        raise Unsupported("JSON_EXTRACT() without a path")
    paths = [path_of("JSON_EXTRACT", p) for p in args[1:]]
    if paths == [None]:  # of several paths, a NULL one is a null in the array
        return null_value(enc.b)
    return _extracted(enc, "JSON_EXTRACT", args[0], tuple(paths))


@function("->>", arity=(2, 2), arg_kinds=("json", "jsonpath"), exact=False, exact_range=True,
          returns="any", differs_in=("*",), mutants=("json-extract-quoted",))
def fn_json_value(enc: Encoder, args: list[Value]) -> Value:
    """``X ->> P``: json_extract(X, P), P as the arrows read it."""
    path = path_of("->>", args[1])
    return null_value(enc.b) if path is None else _extracted(enc, "->>", args[0], (path,))


@function("->", arity=(2, 2), arg_kinds=("json", "jsonpath"), exact=False, exact_range=True,
          returns="text", differs_in=("*",), mutants=("json-arrow-unquoted",))
def fn_json_text(enc: Encoder, args: list[Value]) -> Value:
    """``X -> P``: the JSON text at P (NULL where P selects nothing)."""
    path = path_of("->", args[1])
    return null_value(enc.b) if path is None else _extracted(enc, "->", args[0], (path,))


__all__ = ["fn_json_extract", "fn_json_text", "fn_json_value", "json_names", "path_of"]
