"""Scalar function calls: arity check, argument values, then the registered encoding."""

from __future__ import annotations

from spotit.encodings.encoder import Encoder, Env
from spotit.encodings.registry import FUNCTIONS, encodes
from spotit.encodings.values import Value
from spotit.errors import BindError, Unsupported
from spotit.frontend.now import DATE_FUNCTIONS, TIME_ZONE_MODIFIERS
from spotit.ir import scalar as S
from spotit.ir.types import BINARY, StorageClass


@encodes(S.Call)
def encode_call(enc: Encoder, e: S.Call, env: Env) -> Value:
    spec = FUNCTIONS.get(e.name)
    if spec is None:
        raise Unsupported(f"function {e.name}()")
    n = len(e.args)
    if n < spec.min_args or (spec.max_args is not None and n > spec.max_args):
        raise BindError(f"wrong number of arguments to function {e.name}()")
    if not spec.exact and not spec.exact_range:
        enc.approximate(f"{e.name}()")
    moves = {}
    if e.name in DATE_FUNCTIONS - {"TIMEDIFF"}:  # TIMEDIFF takes two time values
        first = 2 if e.name == "STRFTIME" else 1  # the modifiers follow the time value
        moves = {i: move for i in range(first, n)
                 if (move := _recognised_move(enc, e.args[i], env)) is not None}
    args = [moves[i] if i in moves else enc.value(a, env) for i, a in enumerate(e.args)]
    if e.name in DATE_FUNCTIONS:
        _clock_only_where_written(e, args)
    if (folded := _folded(enc, e, args)) is not None:
        return folded
    if spec.collation:
        found = (S.collation_of(a) for a in e.args)
        c = next((x for x in found if x is not None), None)
        return spec.encode(enc, args, collation=c.name if c is not None else BINARY)
    return spec.encode(enc, args)


def _folded(enc: Encoder, e: S.Call, args: list) -> Value | None:
    """A call whose arguments' values are constants (a recursion's rows, not only
    written constants), folded as a closed call is (``Encoder.fold``: by SQLite, but
    for the clock, a time zone and JULIANDAY). A calendar's rounds (``date(d, '+1
    day')`` from '2021-01-01', 365 times) are then constants, and a recursion the same
    on every database runs to its end exactly (``spotit.encodings.recursive``). A
    function reads its arguments' values, never their affinity; one that compares
    them under a collation other than BINARY is not folded."""
    if not all(isinstance(a, Value) and a.is_constant() for a in args):
        return None
    if e.name in DATE_FUNCTIONS and len(args) <= (1 if e.name == "STRFTIME" else 0):
        return None  # no time value: the clock
    if any((c := S.collation_of(a)) is not None and c.name != BINARY for a in e.args):
        return None
    folded = enc.fold(S.Call(e.name, tuple(S.Const(a.constant()) for a in args)))
    return folded if isinstance(folded, Value) else None


def _recognised_move(enc: Encoder, mod: S.Expr, env: Env):
    """A modifier written ``[sign ||] n || ' unit'`` (days, hours, minutes, seconds,
    months, years), as a ``ComputedMove`` (``spotit.encodings.dates`` encodes it); None
    for any other (a constant is read as it is)."""
    from spotit.encodings.dates import COMPUTED_UNIT_RE, ComputedMove

    if not (isinstance(mod, S.Concat) and isinstance(mod.right, S.Const)
            and isinstance(mod.right.value, str)):
        return None
    unit = COMPUTED_UNIT_RE.match(mod.right.value)
    if unit is None or isinstance(mod.left, S.Const):
        return None
    sign, number = "", mod.left
    if isinstance(number, S.Concat) and isinstance(number.left, S.Const) \
            and number.left.value in ("+", "-"):
        sign, number = number.left.value, number.right
    return ComputedMove(sign, unit.group(1).lower(), enc.value(number, env))


def _clock_only_where_written(e: S.Call, args: list[Value]) -> None:
    """SQLite reads the clock (and the machine's time zone) wherever a date function
    meets 'now' ('localtime', 'utc'); SpotIt pins only the written argument, so the
    same text computed by an expression would be pinned here and not on SQLite."""
    for i, (a, v) in enumerate(zip(e.args, args, strict=True)):
        if isinstance(a, S.Const) or not isinstance(v, Value):  # a computed move
            continue
        words = {w for alt in v.alts if alt.cls is StorageClass.TEXT
                 for w in _constant_choices(alt.term)}
        for word in sorted(words & ({"now", *TIME_ZONE_MODIFIERS} if i else {"now"})):
            raise Unsupported(f"'{word}' computed by an expression in {e.name}() (only a "
                              f"written '{word}' is pinned to the evaluation instant)")


def _constant_choices(term) -> set[str]:
    """The constant texts ``term`` may take by choosing a branch (of CASE, COALESCE, …),
    normalised as SQLite reads a time value or modifier word."""
    if term.is_ite():
        return _constant_choices(term.arg(1)) | _constant_choices(term.arg(2))
    if term.is_constant():
        return {str(term.constant_value()).strip().lower()}
    return set()
