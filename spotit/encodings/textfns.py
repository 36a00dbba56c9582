"""More of SQLite's core scalar functions: TYPEOF, LIKELY/UNLIKELY/LIKELIHOOD, UNICODE,
CHAR, QUOTE, HEX, SOUNDEX, PRINTF/FORMAT.

Exact: TYPEOF (SpotIt tracks storage classes), LIKELY/UNLIKELY/LIKELIHOOD (the
planner's hints return their argument), UNICODE (the code point of the first character
of the text form, NULL for '' and NULL) and CHAR (each argument read as
``sqlite3_value_int64``, NULL as 0, outside 0..0x10FFFF as U+FFFD), both below the
characters that stand for all of SQLite's beyond SMT-LIB's strings
(``ops.STAND_IN_CHARS``: there UNICODE is free above it, and CHAR of such a code point is
a free character there) and outside the surrogates; QUOTE of NULL, INTEGER and TEXT
(``'`` doubled inside quotes). CHAR of 0 (or NULL) puts a NUL in the text, which
SQLite's functions read as its end (LENGTH(CHAR(0)) is 0): no text value models that,
so CHAR is outside the fragment unless every argument is a constant other than 0.

Over-approximated (``exact=False``; SQLite confirms every model): QUOTE of a REAL (it
prints 15 significant digits, or 20 when those do not read back), HEX (the UTF-8 bytes
of the text form: no SMT-LIB function of a text of any length spells them) and SOUNDEX
as uninterpreted functions of the text (the same text, the same value), and
PRINTF/FORMAT, whose format language is not modelled: a text free but for being the same
for the same call on the same row.
"""

from __future__ import annotations

from pysmt.typing import BOOL, INT, STRING

from spotit import concrete
from spotit.encodings import conversions as C
from spotit.encodings.encoder import Encoder
from spotit.encodings.registry import function
from spotit.encodings.rounding import READINGS
from spotit.encodings.values import Alt, Value, int_value, null_value, text_value
from spotit.errors import Unsupported
from spotit.ir.types import StorageClass
from spotit.mutants import planted
from spotit.smt import ops

INT_C, REAL_C, TEXT_C = StorageClass.INTEGER, StorageClass.REAL, StorageClass.TEXT
SQLITE_MAX_CODE = 0x10FFFF
REPLACEMENT = 0xFFFD


@function("TYPEOF", arity=(1, 1), arg_kinds=("any",), returns="text",
          differs_in=("*",), mutants=("typeof-real-as-integer",))
def fn_typeof(enc: Encoder, args: list[Value]) -> Value:
    """'null', 'integer', 'real' or 'text': the value's storage class."""
    b = enc.b
    x = args[0]
    names = {INT_C: "integer", REAL_C: "real", TEXT_C: "text"}
    if planted("typeof-real-as-integer"):
        names[REAL_C] = "integer"
    cases = [(a.guard, b.str(names[a.cls])) for a in x.alts]
    term = b.select(cases[:-1], cases[-1][1]) if cases else b.str("null")
    return text_value(b, b.ite(x.null, b.str("null"), term))


@function("LIKELY", "UNLIKELY", arity=(1, 1), arg_kinds=("any",), returns="any",
          differs_in=("*",), mutants=("likely-as-truth",))
def fn_likely(enc: Encoder, args: list[Value]) -> Value:
    """Its argument: a hint to SQLite's planner only."""
    return _hinted(enc, args[0])


def _hinted(enc: Encoder, v: Value) -> Value:
    if planted("likely-as-truth"):
        t = C.truth_of(enc, v)
        return int_value(enc.b, enc.b.ite(t.t, enc.b.int(1), enc.b.int(0)), v.null)
    return v


@function("LIKELIHOOD", arity=(2, 2), arg_kinds=("any", "probability"), returns="any",
          differs_in=("*",), mutants=("likely-as-truth",))
def fn_likelihood(enc: Encoder, args: list[Value]) -> Value:
    """Its first argument (the second, a constant probability, is a planner hint;
    SQLite refuses any other second argument when it prepares the query)."""
    return _hinted(enc, args[0])


@function("UNICODE", arity=(1, 1), arg_kinds=("any",), returns="numeric",
          differs_in=("*",), mutants=("unicode-last-char",))
def fn_unicode(enc: Encoder, args: list[Value]) -> Value:
    """The code point of the first character of the text form; NULL for '' or NULL."""
    b = enc.b
    t = C.to_text(enc, args[0])
    if not t.alts:
        return null_value(b)
    s = t.alts[0].term
    at = b.int(0)
    if planted("unicode-last-char"):
        at = b.minus(b.str_len(s), b.int(1))
    code = ops.str_to_code(b.char_at(s, at))
    # SQLite's text is UTF-8, which has no surrogates: neither has a database's text
    enc.side.append(b.not_(_surrogate(b, code)))
    null = b.or_(t.null, b.eq(b.str_len(s), b.int(0)))
    # a stand-in character is any of SQLite's at or above it: its code point is free there
    high = b.le(b.int(ops.STAND_IN_CHARS), code)
    beyond = b.fresh("unicode", INT)
    enc.side.append(b.and_(b.le(b.int(ops.STAND_IN_CHARS), beyond),
                           b.le(beyond, b.int(SQLITE_MAX_CODE))))
    enc.approximate("UNICODE of a character from U+2F800 on", b.or_(null, b.not_(high)))
    return int_value(b, b.ite(high, beyond, code), null)


def _surrogate(b, code):
    return b.and_(b.le(b.int(0xD800), code), b.le(code, b.int(0xDFFF)))


@function("CHAR", arity=(0, None), arg_kinds=("codepoint", "codepoint"), returns="text",
          differs_in=("mysql",), mutants=("char-out-of-range-dropped",))
def fn_char(enc: Encoder, args: list[Value]) -> Value:
    """The text of the characters whose code points the arguments are (each read as an
    integer; NULL is 0, out of range is U+FFFD); never NULL."""
    b = enc.b
    out = b.str("")
    exact = []
    for v in args:
        iv = C.to_integer(enc, v)
        code = b.ite(iv.null, b.int(0), iv.alts[0].term if iv.alts else b.int(0))
        outside = b.or_(b.lt(code, b.int(0)), b.lt(b.int(SQLITE_MAX_CODE), code))
        dropped = outside if planted("char-out-of-range-dropped") else b.FALSE
        code = b.ite(outside, b.int(REPLACEMENT), code)
        if not (code.is_constant() and code.constant_value() != 0):
            raise Unsupported("CHAR() of a value that may be 0 or NULL: SQLite's text then "
                              "holds a NUL, which its functions read as the end")
        high = b.le(b.int(ops.STAND_IN_CHARS), code)
        inside = b.and_(b.not_(high), b.not_(_surrogate(b, code)))
        free = b.fresh("char", STRING)
        enc.side.append(b.eq(b.str_len(free), b.int(1)))
        enc.side.append(b.not_(_surrogate(b, ops.str_to_code(free))))
        # a code point from the stand-ins on is one of them (any: they stand for all)
        enc.side.append(b.implies(high, b.le(b.int(ops.STAND_IN_CHARS),
                                             ops.str_to_code(free))))
        out = b.concat(out, b.ite(dropped, b.str(""),
                                  b.ite(inside, ops.str_from_code(code), free)))
        exact.append(inside)
    if exact:
        enc.approximate("CHAR of a code point from U+2F800 on or a surrogate", b.and_(exact))
    return text_value(b, out)


@function("QUOTE", arity=(1, 1), arg_kinds=("any",), returns="text",
          differs_in=("*",), mutants=("quote-not-doubled",))
def fn_quote(enc: Encoder, args: list[Value]) -> Value:
    """The value as an SQL literal: 'NULL', an integer's digits, a text in quotes with
    its quotes doubled; a REAL's literal is left free (see the module)."""
    b = enc.b
    x = args[0]
    cases = []
    for a in x.alts:
        if a.cls is INT_C:
            cases.append((a.guard, C.int_text(b, a.term)))
        elif a.cls is TEXT_C:
            inner = ops.str_replace_all(a.term, b.str("'"), b.str("''"))
            if planted("quote-not-doubled"):
                inner = a.term
            cases.append((a.guard, b.concat(b.concat(b.str("'"), inner), b.str("'"))))
        else:
            enc.approximate("QUOTE of a REAL", b.or_(x.null, b.not_(a.guard)))
            cases.append((a.guard, b.fresh("quote_real", STRING)))
    term = b.select(cases[:-1], cases[-1][1]) if cases else b.str("NULL")
    return text_value(b, b.ite(x.null, b.str("NULL"), term))


def _text_uf(enc: Encoder, name: str, v: Value, on_null: str) -> Value:
    """An uninterpreted function of the text form of ``v`` (``on_null`` for NULL)."""
    b = enc.b
    t = C.to_text(enc, v)
    s = t.alts[0].term if t.alts else b.str("")
    value = b.uf(name, STRING, [s], [STRING])
    enc.reading_points.append((s, value))
    if planted("text-function-null-is-null"):
        return text_value(b, value, t.null)
    return text_value(b, b.ite(t.null, b.str(on_null), value))


@function("HEX", arity=(1, 1), arg_kinds=("any",), exact=False, returns="text",
          differs_in=("*",), mutants=("text-function-null-is-null",))
def fn_hex(enc: Encoder, args: list[Value]) -> Value:
    """The upper-case hexadecimal of the UTF-8 bytes of the text form ('' for NULL)."""
    return _text_uf(enc, "hex", args[0], "")


@function("SOUNDEX", arity=(1, 1), arg_kinds=("text",), exact=False, returns="text",
          differs_in=("*",), mutants=("text-function-null-is-null",))
def fn_soundex(enc: Encoder, args: list[Value]) -> Value:
    """The Soundex code of the text form ('?000' for NULL and text without letters)."""
    return _text_uf(enc, "soundex", args[0], "?000")


READINGS["uf!hex"] = lambda s: concrete.evaluate("HEX(?)", (str(s),))
READINGS["uf!soundex"] = lambda s: concrete.evaluate("SOUNDEX(?)", (str(s),))


@function("PRINTF", "FORMAT", arity=(1, None), arg_kinds=("fmt", "any"), exact=False,
          returns="text", differs_in=("*",), mutants=("printf-never-null",))
def fn_printf(enc: Encoder, args: list[Value]) -> Value:
    """The format filled in: NULL for a NULL format, else a free text or NULL (SQLite
    gives NULL for a conversion it does not know, '%H'), the same for the same call on
    the same row (the encoder makes one term of it)."""
    b = enc.b
    fmt = args[0]
    null = b.or_(fmt.null, b.fresh("printf_null", BOOL))
    if planted("printf-never-null"):
        null = b.FALSE
    return text_value(b, b.fresh("printf", STRING), null)


__all__ = ["BOOL", "INT", "Alt", "fn_char", "fn_hex", "fn_likelihood", "fn_likely",
           "fn_printf", "fn_quote", "fn_soundex", "fn_typeof", "fn_unicode"]
