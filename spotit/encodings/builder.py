"""Smart constructors over pysmt's FormulaManager.

Every formula of the encoder is built here. The constructors fold constants
(``and_(TRUE, x) = x``, ``ite(c, x, x) = x``, ``eq(3, 4) = FALSE`` ...) so that
facts known before solving — a NOT NULL column's null flag, a literal, a
constant guard — never reach the solver. They never change meaning: each
rule is an identity of the SMT-LIB theories.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from fractions import Fraction

from pysmt.environment import Environment, get_env
from pysmt.fnode import FNode
from pysmt.operators import STR_INDEXOF, STR_LENGTH
from pysmt.typing import BOOL, INT, REAL, STRING, FunctionType, PySMTType

from spotit.errors import BudgetExceeded, Unsupported
from spotit.smt import ops


class Builder:
    """Constant-folding formula constructors bound to one pysmt environment."""

    def __init__(self, env: Environment | None = None):
        self.env = env or get_env()
        self.m = self.env.formula_manager
        self.TRUE = self.m.TRUE()
        self.FALSE = self.m.FALSE()
        self._fresh = 0
        self.deadline: float | None = None  # time.monotonic() past which building stops
        self._ticks = 0
        self._as_real: dict[FNode, FNode] = {}  # to_real of an ite: a DAG, walked once

    # ------------------------------------------------------------------ atoms

    def sym(self, name: str, ty: PySMTType) -> FNode:
        return self.m.Symbol(name, ty)

    def fresh(self, prefix: str, ty: PySMTType) -> FNode:
        self._fresh += 1
        return self.m.Symbol(f"{prefix}!{self._fresh}", ty)

    def bool(self, b: bool) -> FNode:
        return self.TRUE if b else self.FALSE

    def int(self, i: int) -> FNode:
        return self.m.Int(int(i))

    def real(self, r: float | int | Fraction) -> FNode:
        return self.m.Real(Fraction(r))

    def model_constant(self, sym: FNode, v: object) -> FNode | None:
        """The constant a solver's model gives ``sym``, or None for a value of another
        sort or an irrational approximation (not usable as an exact value)."""
        t = sym.get_type()
        if t.is_bool_type() and isinstance(v, bool):
            return self.TRUE if v else self.FALSE
        if t.is_int_type() and isinstance(v, int) and not isinstance(v, bool):
            return self.int(v)
        if t.is_real_type() and isinstance(v, int | Fraction) and not isinstance(v, bool):
            return self.real(Fraction(v))
        if t.is_string_type() and isinstance(v, str):
            return self.str(v)
        return None

    def str(self, s: str) -> FNode:
        if (c := next((c for c in s if ord(c) > ops.MAX_CHAR), None)) is not None:
            raise Unsupported(f"text holding the character U+{ord(c):04X}, beyond "
                              "SMT-LIB's strings (U+2FFFF)")
        return self.m.String(s)

    # ------------------------------------------------------------------ boolean

    def not_(self, a: FNode) -> FNode:
        if a.is_true():
            return self.FALSE
        if a.is_false():
            return self.TRUE
        if a.is_not():
            return a.arg(0)
        return self.m.Not(a)

    def _tick(self) -> None:
        """Every 4096 conjunctions/disjunctions, the encoding's deadline is looked at:
        loops that build formulas without encoding an expression (DISTINCT's pairs, a
        recursive CTE's rounds) keep the time limit too."""
        self._ticks += 1
        if not self._ticks & 4095 and self.deadline is not None and \
                time.monotonic() > self.deadline:
            raise BudgetExceeded("time limit reached while encoding")

    def and_(self, *args: FNode | Iterable[FNode]) -> FNode:
        self._tick()
        flat = []
        seen = set()
        for a in _flatten(args):
            if a.is_false():
                return self.FALSE
            if a.is_true() or a in seen:
                continue
            seen.add(a)
            flat.append(a)
        if not flat:
            return self.TRUE
        if len(flat) == 1:
            return flat[0]
        return self.m.And(flat)

    def or_(self, *args: FNode | Iterable[FNode]) -> FNode:
        self._tick()
        flat = []
        seen = set()
        for a in _flatten(args):
            if a.is_true():
                return self.TRUE
            if a.is_false() or a in seen:
                continue
            seen.add(a)
            flat.append(a)
        if not flat:
            return self.FALSE
        if len(flat) == 1:
            return flat[0]
        return self.m.Or(flat)

    def implies(self, a: FNode, b: FNode) -> FNode:
        return self.or_(self.not_(a), b)

    def iff(self, a: FNode, b: FNode) -> FNode:
        if a is b:
            return self.TRUE
        if a.is_true():
            return b
        if b.is_true():
            return a
        if a.is_false():
            return self.not_(b)
        if b.is_false():
            return self.not_(a)
        return self.m.Iff(a, b)

    def ite(self, c: FNode, a: FNode, b: FNode) -> FNode:
        if c.is_true() or a is b:
            return a
        if c.is_false():
            return b
        if a.get_type() is BOOL:
            if a.is_true() and b.is_false():
                return c
            if a.is_false() and b.is_true():
                return self.not_(c)
            if a.is_true():
                return self.or_(c, b)
            if a.is_false():
                return self.and_(self.not_(c), b)
            if b.is_true():
                return self.or_(self.not_(c), a)
            if b.is_false():
                return self.and_(c, a)
        return self.m.Ite(c, a, b)

    def select(self, cases: list[tuple[FNode, FNode]], default: FNode) -> FNode:
        """``ite(c1, v1, ite(c2, v2, ... default))``: the first true case wins."""
        out = default
        for c, v in reversed(cases):
            out = self.ite(c, v, out)
        return out

    def at_most_one(self, xs: list[FNode]) -> FNode:
        return self.and_(
            self.not_(self.and_(xs[i], xs[j])) for i in range(len(xs)) for j in range(i)
        )

    # ------------------------------------------------------------------ equality / order

    def eq(self, a: FNode, b: FNode) -> FNode:
        if a is b:
            return self.TRUE
        if a.is_constant() and b.is_constant():
            return self.bool(a.constant_value() == b.constant_value())
        if a.get_type() is BOOL:
            return self.iff(a, b)
        return self.m.Equals(a, b)

    def lt(self, a: FNode, b: FNode) -> FNode:
        if a is b:
            return self.FALSE
        if a.get_type() is STRING:
            if a.is_constant() and b.is_constant():
                return self.bool(a.constant_value() < b.constant_value())
            return ops.str_lt(a, b)
        a, b = self._num_pair(a, b)
        if a.is_constant() and b.is_constant():
            return self.bool(a.constant_value() < b.constant_value())
        return self.m.LT(a, b)

    def le(self, a: FNode, b: FNode) -> FNode:
        if a is b:
            return self.TRUE
        if a.get_type() is STRING:
            if a.is_constant() and b.is_constant():
                return self.bool(a.constant_value() <= b.constant_value())
            return ops.str_le(a, b)
        a, b = self._num_pair(a, b)
        if a.is_constant() and b.is_constant():
            return self.bool(a.constant_value() <= b.constant_value())
        return self.m.LE(a, b)

    def num_eq(self, a: FNode, b: FNode) -> FNode:
        """Numeric equality across Int and Real (Int promoted exactly)."""
        a, b = self._num_pair(a, b)
        return self.eq(a, b)

    # ------------------------------------------------------------------ arithmetic

    def to_real(self, a: FNode) -> FNode:
        if a.get_type() is REAL:
            return a
        if a.is_int_constant():
            return self.real(a.constant_value())
        if a.is_ite():
            if (done := self._as_real.get(a)) is None:
                done = self._as_real[a] = self.ite(a.arg(0), self.to_real(a.arg(1)),
                                                   self.to_real(a.arg(2)))
            return done
        return self.m.ToReal(a)

    def _num_pair(self, a: FNode, b: FNode) -> tuple[FNode, FNode]:
        ta, tb = a.get_type(), b.get_type()
        if ta is tb:
            return a, b
        return self.to_real(a), self.to_real(b)

    def plus(self, a: FNode, b: FNode) -> FNode:
        a, b = self._num_pair(a, b)
        if a.is_constant() and b.is_constant():
            return self._const(a.constant_value() + b.constant_value(), a.get_type())
        if _is_zero(b):
            return a
        if _is_zero(a):
            return b
        return self.m.Plus(a, b)

    def sum(self, terms: list[FNode], ty: PySMTType = INT) -> FNode:
        terms = [t for t in terms if not _is_zero(t)]
        if not terms:
            return self._const(0, ty)
        if len(terms) == 1:
            return terms[0]
        consts = [t for t in terms if t.is_constant()]
        rest = [t for t in terms if not t.is_constant()]
        if len(consts) > 1:
            total = sum(c.constant_value() for c in consts)
            rest.append(self._const(total, terms[0].get_type()))
            return self.m.Plus(rest) if len(rest) > 1 else rest[0]
        return self.m.Plus(terms)

    def minus(self, a: FNode, b: FNode) -> FNode:
        a, b = self._num_pair(a, b)
        if a.is_constant() and b.is_constant():
            return self._const(a.constant_value() - b.constant_value(), a.get_type())
        if _is_zero(b):
            return a
        return self.m.Minus(a, b)

    def neg(self, a: FNode) -> FNode:
        zero = self._const(0, a.get_type())
        return self.minus(zero, a)

    def times(self, a: FNode, b: FNode) -> FNode:
        a, b = self._num_pair(a, b)
        if a.is_constant() and b.is_constant():
            return self._const(a.constant_value() * b.constant_value(), a.get_type())
        for x, y in ((a, b), (b, a)):
            if x.is_constant():
                v = x.constant_value()
                if v == 1:
                    return y
                if v == 0:
                    return x
        return self.m.Times(a, b)

    def real_div(self, a: FNode, b: FNode) -> FNode:
        """Exact real division; the caller guards b = 0."""
        a, b = self.to_real(a), self.to_real(b)
        if b.is_constant() and b.constant_value() == 0:
            return self.real(0)  # the caller's guard makes the result NULL
        if b.is_constant() and b.constant_value() != 0:
            if a.is_constant():
                return self.real(Fraction(a.constant_value()) / Fraction(b.constant_value()))
            if b.constant_value() == 1:
                return a
        return self._by_divisor(b, lambda v: self.times(a, self.real(Fraction(1, v))),
                                self.real(0)) or self.m.Div(a, b)

    def _by_divisor(self, b: FNode, by_constant, zero: FNode) -> FNode | None:
        """A division by ``b`` as one case per value ``b`` can take, each by a constant
        (linear), where those values are few integers (a COUNT: a sum of 0/1 terms);
        None otherwise. Exact: ``b`` takes no other value; at 0 the caller's guard
        makes the result NULL."""
        values = small_int_range(b)
        if values is None:
            return None
        out = zero
        for v in sorted(values - {0}, reverse=True):
            c = self.real(v) if b.get_type() == REAL else self.int(v)
            out = self.ite(self.eq(b, c), by_constant(v), out)
        return out

    def floordiv(self, a: FNode, n: int) -> FNode:
        """Floor division by a positive constant (SMT-LIB ``div``), folded on constants."""
        if a.is_constant():
            return self.int(a.constant_value() // n)
        if n == 1:
            return a
        return ops.int_div(a, self.int(n))

    def int32(self, a: FNode) -> FNode:
        """``a`` cut to a signed 32-bit integer, as C's ``(int)`` cut of a 64-bit one
        (what ``sqlite3_value_int`` returns: ``SUBSTR('abc', 4294967298, 1)`` is
        ``'b'``), folded on constants."""
        if a.is_constant():
            return self.int(((a.constant_value() + 2**31) % 2**32) - 2**31)
        fits = self.and_(self.le(self.int(-(2**31)), a), self.lt(a, self.int(2**31)))
        return self.ite(fits, a, self.minus(a, self.times(self.int(2**32), self.floordiv(
            self.plus(a, self.int(2**31)), 2**32))))

    def floormod(self, a: FNode, n: int) -> FNode:
        """Remainder of ``floordiv`` (always in 0..n-1), folded on constants."""
        if a.is_constant():
            return self.int(a.constant_value() % n)
        return ops.int_mod(a, self.int(n))

    def int_div_trunc(self, a: FNode, b: FNode) -> FNode:
        """Integer division rounding toward zero (SQLite), from SMT-LIB's Euclidean ``div``."""
        if a.is_constant() and b.is_constant() and b.constant_value() != 0:
            x, y = a.constant_value(), b.constant_value()
            q = abs(x) // abs(y)
            return self.int(q if (x >= 0) == (y > 0) else -q)
        if b.is_constant() and b.constant_value() == 1:
            return a
        zero = self.int(0)
        if not b.is_constant() and (cases := self._by_divisor(
                b, lambda v: self.int_div_trunc(a, self.int(v)), zero)) is not None:
            return cases
        abs_a = self.ite(self.le(zero, a), a, self.neg(a))
        abs_b = self.ite(self.le(zero, b), b, self.neg(b))
        q = ops.int_div(abs_a, abs_b)
        same_sign = self.iff(self.le(zero, a), self.lt(zero, b))
        return self.ite(same_sign, q, self.neg(q))

    def int_rem_trunc(self, a: FNode, b: FNode) -> FNode:
        """Remainder with the sign of the dividend (C's ``%``, as SQLite)."""
        if a.is_constant() and b.is_constant() and b.constant_value() != 0:
            x, y = a.constant_value(), b.constant_value()
            r = abs(x) % abs(y)
            return self.int(r if x >= 0 else -r)
        return self.minus(a, self.times(b, self.int_div_trunc(a, b)))

    def real_trunc(self, a: FNode) -> FNode:
        """Truncate a real toward zero, as an Int."""
        if a.is_constant():
            v = Fraction(a.constant_value())
            return self.int(int(v))
        zero = self.real(0)
        fl = ops.real_to_int(a)
        ce = self.neg(ops.real_to_int(self.neg(a)))
        return self.ite(self.le(zero, a), fl, ce)

    def _const(self, v, ty: PySMTType) -> FNode:
        return self.real(v) if ty is REAL else self.int(v)

    # ------------------------------------------------------------------ strings

    def concat(self, a: FNode, b: FNode) -> FNode:
        if a.is_constant() and b.is_constant():
            return self.str(a.constant_value() + b.constant_value())
        if a.is_constant() and a.constant_value() == "":
            return b
        if b.is_constant() and b.constant_value() == "":
            return a
        return self.m.StrConcat(a, b)

    def str_len(self, a: FNode) -> FNode:
        if a.is_constant():
            return self.int(len(a.constant_value()))
        return self.m.StrLength(a)

    # Text in the model never holds NUL (``char(0)``): SQLite's C functions stop there.

    def char_at(self, s: FNode, i: FNode) -> FNode:
        """The one-character text at 0-based position ``i`` ('' past the end)."""
        return self.m.StrCharAt(s, i)

    def substr(self, s: FNode, start: FNode, count: FNode) -> FNode:
        """SMT-LIB's ``str.substr``: 0-based ``start``, at most ``count`` characters."""
        return self.m.StrSubstr(s, start, count)

    def contains(self, s: FNode, part: FNode) -> FNode:
        return self.m.StrContains(s, part)

    def starts_with(self, s: FNode, prefix: FNode) -> FNode:
        return self.m.StrPrefixOf(prefix, s)

    def ends_with(self, s: FNode, suffix: FNode) -> FNode:
        return self.m.StrSuffixOf(suffix, s)

    def replace_first(self, s: FNode, old: FNode, new: FNode) -> FNode:
        """SMT-LIB's ``str.replace``: the first ``old`` in ``s`` replaced by ``new``."""
        return self.m.StrReplace(s, old, new)

    def index_of(self, s: FNode, part: FNode, start: FNode) -> FNode:
        """0-based position of ``part`` in ``s`` from ``start``, -1 if absent."""
        return self.m.StrIndexOf(s, part, start)

    # ------------------------------------------------------------------ functions

    def uf(self, name: str, ret: PySMTType, args: Iterable[FNode],
           params: Iterable[PySMTType] | None = None) -> FNode:
        """An uninterpreted function ``uf!<name>`` applied to ``args`` (one symbol per
        name and signature: the same name and arguments are the same term)."""
        args = list(args)
        types = list(params) if params is not None else [a.get_type() for a in args]
        return self.m.Function(self.m.Symbol(f"uf!{name}", FunctionType(ret, types)), args)

    def declared(self, name: str) -> FNode:
        """The symbol ``name`` as declared in this environment (KeyError-like if not)."""
        return self.m.get_symbol(name)

    def size(self) -> int:
        """How many distinct formulas the environment holds (the encoder's budget)."""
        return len(self.m.formulae)


def _flatten(args) -> Iterable[FNode]:
    for a in args:
        if isinstance(a, FNode):
            yield a
        else:
            yield from a


def _is_zero(t: FNode) -> bool:
    return t.is_constant() and t.get_type() in (INT, REAL) and t.constant_value() == 0


__all__ = ["BOOL", "INT", "REAL", "STRING", "Builder"]


# A divisor with more possible values than this keeps the nonlinear division.
DIVISOR_CASES = 130


def small_int_range(t: FNode, limit: int = DIVISOR_CASES) -> frozenset[int] | None:
    """The integer values term ``t`` can take, read from its shape (constants, ``ite``,
    ``+``, conversion to real) when they are at most ``limit``; None otherwise."""
    memo: dict[FNode, frozenset[int] | None] = {}

    def walk(n: FNode) -> frozenset[int] | None:
        if n in memo:
            return memo[n]
        out: frozenset[int] | None = None
        if n.is_constant() and n.get_type() in (INT, REAL):
            v = Fraction(n.constant_value())
            out = frozenset({int(v)}) if v.denominator == 1 else None
        elif n.is_ite():
            x, y = walk(n.arg(1)), walk(n.arg(2))
            out = None if x is None or y is None else x | y
        elif n.is_plus():
            out = frozenset({0})
            for arg in n.args():
                part = walk(arg)
                if part is None:
                    out = None
                    break
                out = frozenset(u + w for u in out for w in part)
                if len(out) > limit:
                    out = None
                    break
        elif n.is_toreal():
            out = walk(n.arg(0))
        memo[n] = out if out is None or len(out) <= limit else None
        return memo[n]

    return walk(t)


# SQLite's SQLITE_MAX_LENGTH: no text or blob is longer, so no LENGTH is larger.
MAX_TEXT_LENGTH = 1_000_000_000


def int_interval(t: FNode) -> tuple[int, int] | None:
    """Bounds of integer term ``t`` read from its shape (constants, ``ite``, ``+``,
    ``-``, ``*``, string lengths and positions), or None where a factor is unbounded
    (a cell, a sum of cells). Used to leave out the overflow case of an arithmetic
    result that cannot leave 64 bits (``COUNT(*) * 100``, ``LENGTH(s) - 2``)."""
    memo: dict[FNode, tuple[int, int] | None] = {}

    def walk(n: FNode) -> tuple[int, int] | None:
        if n in memo:
            return memo[n]
        out: tuple[int, int] | None = None
        if n.is_int_constant():
            out = (n.constant_value(), n.constant_value())
        elif n.is_ite():
            x, y = walk(n.arg(1)), walk(n.arg(2))
            out = None if x is None or y is None else (min(x[0], y[0]), max(x[1], y[1]))
        elif n.node_type() == STR_LENGTH:
            out = (0, MAX_TEXT_LENGTH)
        elif n.node_type() == STR_INDEXOF:
            out = (-1, MAX_TEXT_LENGTH)
        elif n.is_plus() or n.is_minus() or n.is_times():
            parts = [walk(a) for a in n.args()]
            if all(p is not None for p in parts):
                out = parts[0]
                for p in parts[1:]:
                    if n.is_plus():
                        out = (out[0] + p[0], out[1] + p[1])
                    elif n.is_minus():
                        out = (out[0] - p[1], out[1] - p[0])
                    else:
                        corners = [u * w for u in out for w in p]
                        out = (min(corners), max(corners))
        memo[n] = out
        return out

    return walk(t)
