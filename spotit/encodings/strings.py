"""Text operators and functions: ``||``, LIKE/GLOB, LENGTH, SUBSTR, INSTR, REPLACE,
TRIM, UPPER/LOWER, exactly as SQLite computes them on text.

Operands that are numbers are first turned into their text (``to_text``).
LIKE is ASCII case-insensitive (SQLite's default), GLOB case-sensitive; both
need a constant pattern, which is compiled to an SMT-LIB regular expression.
"""

from __future__ import annotations

from pysmt.fnode import FNode
from pysmt.typing import STRING

from spotit.encodings import conversions as C
from spotit.encodings.builder import Builder
from spotit.encodings.encoder import Encoder, Env
from spotit.encodings.registry import encodes, function
from spotit.encodings.textorder import CaseMap
from spotit.encodings.values import (
    Alt,
    DateParts,
    Truth,
    Value,
    choose,
    int_value,
    text_value,
    truth_of_bool,
)
from spotit.errors import Unsupported
from spotit.ir import scalar as S
from spotit.ir.types import StorageClass
from spotit.mutants import planted
from spotit.smt import ops

SQLITE_MAX_LENGTH = 1_000_000_000  # SQLITE_LIMIT_LENGTH: no text is longer


def _text(enc: Encoder, v: Value) -> tuple[FNode, FNode]:
    """(null flag, String term) of a value taken as text."""
    t = C.to_text(enc, v)
    if not t.alts:
        return enc.b.TRUE, enc.b.str("")
    return t.null, t.alts[0].term


def text_of(enc: Encoder, v: Value) -> FNode:
    """The String term of a value taken as text (its NULL flag aside)."""
    return _text(enc, v)[1]


@encodes(S.Concat)
def encode_concat(enc: Encoder, e: S.Concat, env: Env) -> Value:
    b = enc.b
    n1, s1 = _text(enc, enc.value(e.left, env))
    n2, s2 = _text(enc, enc.value(e.right, env))
    return text_value(b, b.concat(s1, s2), b.or_(n1, n2))


# ---------------------------------------------------------------------- LIKE / GLOB


def like_regex(pattern: str, escape: str | None):
    """SMT-LIB regex for a LIKE pattern: ``%`` any text, ``_`` one character,
    ASCII letters match either case."""
    parts = []
    i = 0
    while i < len(pattern):
        ch = pattern[i]
        if escape is not None and ch == escape:
            i += 1
            if i < len(pattern):
                parts.append(_char_ci(pattern[i]))
            else:
                return None  # SQLite: an escape at the end never matches
        elif ch == "%":
            parts.append(ops.re_all())
        elif ch == "_":
            parts.append(ops.re_allchar())
        else:
            parts.append(_char_ci(ch))
        i += 1
    return _concat_re(parts)


def _folds(ch: str) -> bool:
    """LIKE matches this pattern character in either case (ASCII letters)."""
    return ch.isascii() and ch.isalpha() and not planted("like-case-sensitive")


def _char_ci(ch: str):
    if _folds(ch):
        return ops.re_union(ops.str_to_re(_S(ch.lower())), ops.str_to_re(_S(ch.upper())))
    return ops.str_to_re(_S(ch))


def _S(s: str) -> FNode:
    from pysmt.environment import get_env

    return get_env().formula_manager.String(s)


def _concat_re(parts):
    if not parts:
        return ops.str_to_re(_S(""))
    out = parts[0]
    for p in parts[1:]:
        out = ops.re_concat(out, p)
    return out


def glob_regex(pattern: str):
    """SMT-LIB regex for a GLOB pattern: ``*``, ``?``, ``[...]`` classes, case-sensitive."""
    parts = []
    i = 0
    while i < len(pattern):
        ch = pattern[i]
        if ch == "*":
            parts.append(ops.re_all())
        elif ch == "?":
            parts.append(ops.re_allchar())
        elif ch == "[":
            j = pattern.find("]", i + 2)
            if j < 0:
                return None  # unterminated class never matches
            body = pattern[i + 1:j]
            negate = body.startswith("^")
            if negate:
                body = body[1:]
            items = []
            k = 0
            while k < len(body):
                if k + 2 < len(body) and body[k + 1] == "-":
                    items.append(ops.re_range(_S(body[k]), _S(body[k + 2])))
                    k += 3
                else:
                    items.append(ops.str_to_re(_S(body[k])))
                    k += 1
            cls = items[0]
            for it in items[1:]:
                cls = ops.re_union(cls, it)
            if negate:
                cls = ops.re_inter(ops.re_allchar(), ops.re_comp(cls))
            parts.append(cls)
            i = j
        else:
            parts.append(ops.str_to_re(_S(ch)))
        i += 1
    return _concat_re(parts)


@encodes(S.Like)
def encode_like(enc: Encoder, e: S.Like, env: Env) -> Truth:
    b = enc.b
    pat = C.to_text(enc, enc.value(e.pattern, env))
    if not pat.is_constant():
        raise Unsupported("LIKE/GLOB with a non-constant pattern")
    esc_char = None
    esc_null = b.FALSE
    if e.escape is not None:
        esc = C.to_text(enc, enc.value(e.escape, env))
        if not esc.is_constant():
            raise Unsupported("LIKE with a non-constant ESCAPE")
        if esc.constant() is None:
            esc_null = b.TRUE
        else:
            esc_char = esc.constant()
            if len(esc_char) != 1:
                raise Unsupported("ESCAPE expression must be a single character")
    if planted("like-escape-ignored"):
        esc_char, esc_null = None, b.FALSE
    pattern = pat.constant()
    operand = C.to_text(enc, enc.value(e.operand, env))
    null_x, s = _text(enc, operand)
    if pattern is None:
        return Truth(b.FALSE, b.FALSE)
    view = operand.alts[0].view if operand.alts else None
    if isinstance(view, CaseMap) and not e.glob and not planted("like-case-sensitive"):
        s, view = view.source, None  # LIKE folds ASCII case: LIKE(LOWER(x), p) = LIKE(x, p)
    cond = _shaped_like(b, view, pattern, e.glob, esc_char)
    if cond is None:
        regex = glob_regex(pattern) if e.glob else like_regex(pattern, esc_char)
        cond = b.FALSE if regex is None else _match(b, s, pattern, regex, e.glob, esc_char)
    return truth_of_bool(b, cond, b.or_(null_x, esc_null))


def _shaped_like(b: Builder, view, pattern: str, glob: bool, esc) -> FNode | None:
    """``date LIKE '2012%'``: a literal prefix on shaped text is an interval of keys.
    (Shaped text has no letters, so LIKE's case folding cannot matter.)"""
    if view is None or esc is not None:
        return None
    wild = "*?[" if glob else "%_"
    head = pattern.rstrip("*" if glob else "%")
    if head == pattern or any(c in head for c in wild):
        return None
    from spotit.encodings.textorder import prefix_match

    return prefix_match(b, view, head)


MAX_CASE_VARIANT_LETTERS = 6


def _case_variants(text: str) -> list[str]:
    """Every spelling of ``text`` up to ASCII case (2**letters of them)."""
    import itertools

    letters = [i for i, ch in enumerate(text) if ch.isascii() and ch.isalpha()]
    out = []
    for flips in itertools.product((False, True), repeat=len(letters)):
        chars = list(text)
        for i, up in zip(letters, flips, strict=True):
            chars[i] = chars[i].upper() if up else chars[i].lower()
        out.append("".join(chars))
    return out


def _match(b: Builder, s: FNode, pattern: str, regex, glob: bool, esc) -> FNode:
    """Common LIKE shapes become what solvers handle far better than regular
    expressions: 'lit', 'lit%' and '%lit' (``_`` allowed) a length and one character
    per position; '%lit%' without ``_`` str.contains over the literal's case variants."""
    if not glob and esc is None:
        fixed = _positional_like(b, s, pattern)
        if fixed is not None:
            return fixed
    if not glob and esc is None and "_" not in pattern:
        core = pattern.strip("%")
        letters = sum(1 for c in core if c.isascii() and c.isalpha())
        if "%" not in core and letters <= MAX_CASE_VARIANT_LETTERS:
            starts, ends = pattern.startswith("%"), pattern.endswith("%")
            forms = []
            spellings = [core] if planted("like-case-sensitive") else _case_variants(core)
            for v in spellings:
                lit = b.str(v)
                if starts and ends:
                    forms.append(b.contains(s, lit))
                elif ends:
                    forms.append(b.starts_with(s, lit))
                elif starts:
                    forms.append(b.ends_with(s, lit))
                else:
                    forms.append(b.eq(s, lit))
            return b.or_(forms)
    if s.is_constant():
        from spotit import concrete

        op = "GLOB" if glob else "LIKE"
        esc_sql = " ESCAPE ?" if esc else ""
        params = (s.constant_value(), pattern) + ((esc,) if esc else ())
        return b.bool(bool(concrete.evaluate(f"? {op} ?{esc_sql}", params)))
    return ops.str_in_re(s, regex)


def _positional_like(b: Builder, s: FNode, pattern: str) -> FNode | None:
    """``s LIKE 'a_c'`` (or ``'a_c%'``, ``'%a_c'``) as its length and the character at
    each fixed position: ``_`` any one, an ASCII letter either case, anything else
    itself. None for other shapes."""
    starts = pattern.startswith("%")
    core = pattern[1:] if starts else pattern
    ends = core.endswith("%")
    core = core[:-1] if ends else core
    if "%" in core or (starts and ends) or not core:
        return None
    m, n = b.m, len(core)
    length = m.StrLength(s)
    parts = [m.GE(length, b.int(n)) if starts or ends else m.Equals(length, b.int(n))]
    for i, ch in enumerate(core):
        if ch == "_":
            continue
        at = b.minus(length, b.int(n - i)) if starts else b.int(i)
        char = m.StrCharAt(s, at)
        spellings = {ch.lower(), ch.upper()} if _folds(ch) else {ch}
        parts.append(b.or_([m.Equals(char, b.str(c)) for c in sorted(spellings)]))
    return b.and_(parts)


# ---------------------------------------------------------------------- functions


def _nullable(b: Builder, *nulls: FNode) -> FNode:
    return b.or_(*nulls)


@function("LENGTH", arity=(1, 1), arg_kinds=("any",), returns="numeric",
          differs_in=(), mutants=("length-null-zero",))
def fn_length(enc: Encoder, args: list[Value]) -> Value:
    """Characters of the text (numbers: of their text form); NULL for NULL."""
    b = enc.b
    t = C.to_text(enc, args[0])
    n, s = _text(enc, t)
    if t.alts and isinstance(t.alts[0].shape, CaseMap):
        s = t.alts[0].shape.source  # case mapping keeps the length
    date = t.alts[0].date if t.alts else None
    if date is not None and date.ordered:
        # 'YYYY-MM-DD[ HH:MM:SS]' plus '.' and flen digits when there is a fraction
        length = b.int(19 if date.has_time else 10)
        if date.fractional:
            length = b.plus(length, b.ite(b.eq(date.flen, b.int(0)), b.int(0),
                                          b.plus(date.flen, b.int(1))))
        return int_value(b, length, n)
    if planted("length-null-zero"):
        return int_value(b, b.ite(n, b.int(0), b.str_len(s)), b.FALSE)
    return int_value(b, b.str_len(s), n)


def _int_arg(enc: Encoder, v: Value) -> tuple[FNode, FNode]:
    iv = C.to_integer(enc, v)
    if not iv.alts:
        return enc.b.TRUE, enc.b.int(0)
    return iv.null, iv.alts[0].term


@function("SUBSTR", "SUBSTRING", arity=(2, 3), arg_kinds=("text", "int", "int"), returns="text",
          differs_in=(), mutants=("substr-negative-start",))
def fn_substr(enc: Encoder, args: list[Value]) -> Value:
    """SQLite's substr(): 1-based start, negative start from the end, start 0 takes
    one character less, negative length takes the characters before start. Start
    and length are read with ``sqlite3_value_int``: cut to 32 bits (a length of
    2147483648 is negative)."""
    b = enc.b
    shaped = _substr_of_shaped(enc, args)
    if shaped is not None:
        return shaped
    ns, s = _text(enc, args[0])
    np1, p1 = _int_arg(enc, args[1])
    p1 = b.int32(p1)
    if planted("substr-negative-start"):
        p1 = b.ite(b.lt(p1, b.int(0)), b.neg(p1), p1)
    nulls = [ns, np1]
    length = b.str_len(s)
    # no text SQLite holds is longer than its length limit: a start computed from the
    # length (LENGTH(s) - 2) stays within 32 bits
    enc.side.append(b.le(length, b.int(SQLITE_MAX_LENGTH)))
    zero = b.int(0)
    if len(args) == 3:
        np2, p2raw = _int_arg(enc, args[2])
        p2raw = b.int32(p2raw)
        nulls.append(np2)
        neg2 = b.lt(p2raw, zero)
        p2 = b.ite(neg2, b.neg(p2raw), p2raw)
    else:
        neg2 = b.FALSE
        p2 = b.int(SQLITE_MAX_LENGTH)  # SQLite's "to the end": its length limit
    # start
    p1_neg = b.lt(p1, zero)
    q1_neg = b.plus(p1, length)
    # p1 < 0: p1 += len; if still < 0: p2 += p1, clamp p2 at 0, p1 = 0
    still_neg = b.lt(q1_neg, zero)
    p2_a = b.ite(still_neg, b.ite(b.lt(b.plus(p2, q1_neg), zero), zero, b.plus(p2, q1_neg)), p2)
    p1_a = b.ite(still_neg, zero, q1_neg)
    # p1 > 0: p1 -= 1;  p1 == 0: p2 -= 1 if p2 > 0
    p1_b = b.ite(b.lt(zero, p1), b.minus(p1, b.int(1)), zero)
    p2_b = b.ite(b.and_(b.eq(p1, zero), b.lt(zero, p2)), b.minus(p2, b.int(1)), p2)
    start = b.ite(p1_neg, p1_a, p1_b)
    count = b.ite(p1_neg, p2_a, p2_b)
    if not neg2.is_false():
        # negative length: the characters before start
        back = b.minus(start, count)
        start2 = b.ite(b.lt(back, zero), zero, back)
        count2 = b.ite(b.lt(back, zero), b.plus(count, back), count)
        start = b.ite(neg2, start2, start)
        count = b.ite(neg2, count2, count)
    return text_value(b, b.substr(s, start, count), b.or_(*nulls))


def _substr_of_shaped(enc: Encoder, args: list[Value]) -> Value | None:
    """SUBSTR of date text at constant positions: the text is fixed-width pieces
    (``YYYY``, ``-``, ``MM`` ...), so the result is a concatenation of pieces, and a
    single field keeps its integer view (``SUBSTR(d, 1, 4)`` is the padded year).
    Text that may end in a fraction of a second has one layout per number of
    fraction digits (0 to 3); a selection that differs between them is chosen by
    that number."""
    from spotit import concrete

    b = enc.b
    t = C.to_text(enc, args[0])
    if len(t.alts) != 1 or t.alts[0].date is None or not t.alts[0].date.ordered:
        return None
    if not all(a.is_constant() and isinstance(a.constant(), int) for a in args[1:]):
        return None
    p = t.alts[0].date
    head: list = [("y", 4), "-", ("m", 2), "-", ("d", 2)]
    if p.has_time:
        head += [" ", ("H", 2), ":", ("M", 2), ":", ("S", 2)]
    layouts: list[tuple[int, list]] = [(0, head)]
    if p.fractional:  # '.' and the first n digits of the milliseconds
        layouts += [(n, [*head, ".", (f"f{n}", n)]) for n in (1, 2, 3)]
    results: list[tuple[int, tuple[int, ...], FNode, object]] = []
    for flen, fields in layouts:
        width = sum(1 if isinstance(f, str) else f[1] for f in fields)
        marker = "".join(chr(0x41 + i) for i in range(width))
        picked = concrete.evaluate("SUBSTR(?, ?, ?)" if len(args) == 3 else "SUBSTR(?, ?)",
                                   (marker, *(a.constant() for a in args[1:])))
        wanted = tuple(ord(c) - 0x41 for c in picked)
        results.append((flen, wanted, *_date_pieces(b, p, fields, wanted)))
    if len({wanted for _, wanted, _, _ in results}) == 1:
        # the same characters of the head whatever the fraction
        _, wanted, text, view = results[0]
        date = None
        if wanted in (tuple(range(10)), tuple(range(19))):  # the date, or the whole second
            zero = b.int(0)
            clock = (p.H, p.M, p.S) if len(wanted) == 19 else (zero, zero, zero)
            date, view = DateParts(p.y, p.m, p.d, *clock, len(wanted) == 19), None
        return Value(t.null, (Alt(StorageClass.TEXT, b.TRUE, text, date, view),))
    text = results[0][2]
    for flen, _, piece, _ in results[1:]:
        text = b.ite(b.eq(p.flen, b.int(flen)), piece, text)
    return text_value(b, text, t.null)


def _date_pieces(b: Builder, p, fields: list, wanted: tuple[int, ...]) -> tuple[FNode, object]:
    """The characters at positions ``wanted`` of date text laid out as ``fields``,
    and a Padded view when they are exactly one field."""
    from spotit.encodings.textorder import Padded

    pieces, pos, views = [], 0, []
    for f in fields:
        width = 1 if isinstance(f, str) else f[1]
        span = [i - pos for i in wanted if pos <= i < pos + width]
        if span:
            if isinstance(f, str):
                pieces.append(b.str(f))
            else:
                x = _field_value(b, p, f[0])
                term = _pad(b, x, width)
                if len(span) == width:
                    pieces.append(term)
                    views.append(Padded(x, width))
                else:
                    pieces.append(b.substr(term, b.int(span[0]), b.int(len(span))))
                    views.append(None)
        pos += width
    text = b.str("")
    for piece in pieces:
        text = b.concat(text, piece)
    return text, views[0] if len(pieces) == 1 and views else None


def _field_value(b: Builder, p, name: str) -> FNode:
    """A date field's integer; ``f<n>``: the number the n fraction digits spell."""
    if name.startswith("f"):
        n = int(name[1:])
        return p.ms if n == 3 else b.floordiv(p.ms, 10 ** (3 - n))
    return getattr(p, name)


def _pad(b: Builder, x: FNode, width: int) -> FNode:
    from spotit.encodings.calendar import pad

    return pad(b, x, width)


@function("INSTR", arity=(2, 2), arg_kinds=("text", "text"), returns="numeric",
          differs_in=(), mutants=("instr-zero-based",))
def fn_instr(enc: Encoder, args: list[Value]) -> Value:
    """1-based position of the first occurrence of y in x, 0 if none."""
    b = enc.b
    tx = C.to_text(enc, args[0])
    nx, x = _text(enc, tx)
    ny, y = _text(enc, args[1])
    shape = tx.alts[0].shape if tx.alts else None
    pos = None
    if isinstance(shape, CaseMap) and y.is_constant():
        pos = _instr_case_mapped(enc, shape, y.constant_value())
    if pos is None:
        pos = b.plus(b.index_of(x, y, b.int(0)), b.int(0 if planted("instr-zero-based") else 1))
    return int_value(b, pos, b.or_(nx, ny))


def _instr_case_mapped(enc: Encoder, shape: CaseMap, needle: str) -> FNode:
    """INSTR(LOWER(s), c) read on s: the first position where s holds c up to ASCII
    case, i.e. the least ``str.indexof`` over c's case variants (exact; at most
    2**6 variants, more letters use the mapped text)."""
    from spotit.encodings.textorder import case_map_can_hold

    b = enc.b
    if not needle:
        return b.int(1)
    if not case_map_can_hold(shape, needle):
        return b.int(0)
    letters = sum(1 for ch in needle if ch.isascii() and ch.isalpha())
    if letters > MAX_CASE_VARIANT_LETTERS:
        return None  # type: ignore[return-value]
    variants = _case_variants(needle)  # ASCII letters only: LOWER('É') is 'É
    best = None  # least non-negative index so far, as an (found, index) pair
    for v in variants:
        idx = b.index_of(shape.source, b.str(v), b.int(0))
        found = b.le(b.int(0), idx)
        if best is None:
            best = (found, idx)
        else:
            bf, bi = best
            take = b.and_(found, b.or_(b.not_(bf), b.lt(idx, bi)))
            best = (b.or_(bf, found), b.ite(take, idx, bi))
    assert best is not None
    return b.ite(best[0], b.plus(best[1], b.int(1)), b.int(0))


# "any", not "text": with an empty pattern SQLite returns x as it is (an INTEGER stays one)
@function("REPLACE", arity=(3, 3), arg_kinds=("text", "text", "text"), returns="any",
          differs_in=(), mutants=("replace-first-only",))
def fn_replace(enc: Encoder, args: list[Value]) -> Value:
    """Every occurrence of y in x replaced by z, as text. When y is empty SQLite returns
    x itself, its type kept and even when z is NULL (``replace(0, '', NULL)`` is the
    integer 0)."""
    b = enc.b
    nx, x = _text(enc, args[0])
    ny, y = _text(enc, args[1])
    nz, z = _text(enc, args[2])
    if x.is_constant() and y.is_constant() and z.is_constant() and y.constant_value():
        out = b.str(x.constant_value().replace(y.constant_value(), z.constant_value(),
                                               1 if planted("replace-first-only") else -1))
    elif planted("replace-first-only"):
        out = b.replace_first(x, y, z)
    else:
        out = ops.str_replace_all(x, y, z)
    replaced = text_value(b, out, b.or_(nx, ny, nz))
    return choose(b, b.and_(b.not_(ny), b.eq(y, b.str(""))), args[0], replaced)


CASE_MAP_EXACT_LENGTH = 8


def _case_map(enc: Encoder, s: FNode, upper: bool) -> FNode:
    """ASCII case mapping of ``s``: a fresh string of the same length whose first
    characters are mapped one by one (``str.to_code``). Exact for text of at most
    ``CASE_MAP_EXACT_LENGTH`` characters; longer text keeps only the length (an
    over-approximation). Solvers handle this far better than 26 ``str.replace_all``."""
    from pysmt.typing import STRING

    b = enc.b
    if s.is_constant():
        return b.str(_ascii_case(s.constant_value(), upper))
    hit = enc.case_maps.get((s, upper))
    if hit is not None:
        return hit  # one symbol per input: LOWER(x) and a NOCASE key of x are the same
    if s.is_ite():  # case mapping commutes with the choice
        c, x, y = s.args()
        out = enc.case_maps[s, upper] = b.ite(c, _case_map(enc, x, upper),
                                              _case_map(enc, y, upper))
        return out
    lo, hi, shift = (97, 122, -32) if upper else (65, 90, 32)
    if planted("case-map-skips-z"):
        hi -= 1
    u = enc.case_maps[s, upper] = b.fresh("case", STRING)
    n = b.str_len(s)
    cons = [b.eq(b.str_len(u), n)]
    for i in range(CASE_MAP_EXACT_LENGTH):
        c = ops.str_to_code(b.char_at(s, b.int(i)))
        mapped = b.ite(b.and_(b.le(b.int(lo), c), b.le(c, b.int(hi))), b.plus(c, b.int(shift)), c)
        cons.append(b.implies(b.lt(b.int(i), n),
                              b.eq(ops.str_to_code(b.char_at(u, b.int(i))), mapped)))
    def solve(known):
        t = known(s)
        return {u: b.str(_ascii_case(t.constant_value(), upper))} if t.is_constant() else None

    enc.define((u,), b.and_(cons),
               f"UPPER/LOWER of text longer than {CASE_MAP_EXACT_LENGTH} characters",
               b.le(n, b.int(CASE_MAP_EXACT_LENGTH)), solve, functional=True)
    return u


def _ascii_case(text: str, upper: bool) -> str:
    """SQLite's UPPER/LOWER without ICU: ASCII letters only."""
    kept = "zZ" if planted("case-map-skips-z") else ""
    return "".join((c.upper() if upper else c.lower()) if c.isascii() and c not in kept
                   else c for c in text)


def _case_mapped(enc: Encoder, v: Value, upper: bool) -> Value:
    b = enc.b
    n, s = _text(enc, v)
    shape = None if s.is_constant() else CaseMap(s, upper)
    return Value(n, (Alt(StorageClass.TEXT, b.TRUE, _case_map(enc, s, upper), None, shape),))


@function("UPPER", arity=(1, 1), arg_kinds=("text",), returns="text",
          differs_in=("*",), mutants=("case-map-skips-z",))
def fn_upper(enc: Encoder, args: list[Value]) -> Value:
    """ASCII letters to upper case (SQLite's default, without ICU)."""
    return _case_mapped(enc, args[0], True)


@function("LOWER", arity=(1, 1), arg_kinds=("text",), returns="text",
          differs_in=("*",), mutants=("case-map-skips-z",))
def fn_lower(enc: Encoder, args: list[Value]) -> Value:
    return _case_mapped(enc, args[0], False)


def _trim(enc: Encoder, args: list[Value], left: bool, right: bool) -> Value:
    """Remove characters of the set (default: spaces) from the chosen ends.

    Encoded exactly with fresh parts ``x = pre ++ mid ++ suf`` whose definition
    (pre, suf made of set characters, mid not starting/ending with one) has a
    unique solution, so the side constraint is definitional.
    """
    b = enc.b
    nx, x = _text(enc, args[0])
    chars = " \t\n\r" if planted("trim-whitespace") else " "
    nulls = [nx]
    if len(args) == 2:
        cs = C.to_text(enc, args[1])
        if not cs.is_constant():
            raise Unsupported("TRIM with a non-constant character set")
        if cs.constant() is None:
            return Value(b.TRUE, ())
        chars = cs.constant()
    if x.is_constant():
        t = x.constant_value()
        if left:
            t = t.lstrip(chars)
        if right:
            t = t.rstrip(chars)
        return text_value(b, b.str(t), b.or_(*nulls))
    if not chars:
        return text_value(b, x, b.or_(*nulls))
    cset = ops.str_to_re(b.str(chars[0]))
    for c in chars[1:]:
        cset = ops.re_union(cset, ops.str_to_re(b.str(c)))
    pre = b.fresh("trim_pre", STRING) if left else b.str("")
    suf = b.fresh("trim_suf", STRING) if right else b.str("")
    mid = b.fresh("trim_mid", STRING)
    cons = [b.eq(x, b.concat(pre, b.concat(mid, suf)))]
    star = ops.re_star(cset)
    if left:
        cons.append(ops.str_in_re(pre, star))
        cons.append(b.not_(ops.str_in_re(b.char_at(mid, b.int(0)), cset)))
    if right:
        cons.append(ops.str_in_re(suf, star))
        last = b.char_at(mid, b.minus(b.str_len(mid), b.int(1)))
        cons.append(b.not_(ops.str_in_re(last, cset)))
    def solve(known):
        t = known(x)
        if not t.is_constant():
            return None
        text = t.constant_value()
        core = text.lstrip(chars) if left else text
        core = core.rstrip(chars) if right else core
        start = len(text) - len(text.lstrip(chars)) if left else 0
        parts = {pre: text[:start], mid: core, suf: text[start + len(core):]}
        return {sym: b.str(v) for sym, v in parts.items() if not sym.is_constant()}

    # not functional: text of set characters alone splits between pre and suf anyhow
    enc.define(tuple(x for x in (pre, mid, suf) if not x.is_constant()), b.and_(*cons),
               solve=solve)
    return text_value(b, mid, b.or_(*nulls))


@function("TRIM", arity=(1, 2), arg_kinds=("text", "chars"), returns="text",
          differs_in=(), mutants=("trim-whitespace",))
def fn_trim(enc: Encoder, args: list[Value]) -> Value:
    return _trim(enc, args, True, True)


@function("LTRIM", arity=(1, 2), arg_kinds=("text", "chars"), returns="text",
          differs_in=(), mutants=("trim-whitespace",))
def fn_ltrim(enc: Encoder, args: list[Value]) -> Value:
    return _trim(enc, args, True, False)


@function("RTRIM", arity=(1, 2), arg_kinds=("text", "chars"), returns="text",
          differs_in=(), mutants=("trim-whitespace",))
def fn_rtrim(enc: Encoder, args: list[Value]) -> Value:
    return _trim(enc, args, False, True)
