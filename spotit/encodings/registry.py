"""The one table from IR operators and SQL functions to their encodings.

``@encodes(ir.Compare)`` registers the encoding of an IR class;
``@function("SUBSTR", arity=(2, 3), ...)`` registers a scalar SQL function. Each is
registered exactly once (a duplicate raises at import), and
``check_complete()`` asserts every concrete IR class has an encoding. The
soundness harness, the coverage report and the docs all enumerate this
registry, so they cannot drift from what the encoder does.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from spotit.ir import relational as R
from spotit.ir import scalar as S

SCALAR: dict[type, Callable[..., Any]] = {}
RELATIONAL: dict[type, Callable[..., Any]] = {}
FUNCTIONS: dict[str, FunctionSpec] = {}
RESULT_KINDS = ("numeric", "text", "any")  # the values of ``FunctionSpec.returns``
WINDOW_FUNCTIONS: dict[str, WindowFunctionSpec] = {}


@dataclass(frozen=True)
class FunctionSpec:
    """A scalar SQL function's encoding and what the fuzz harness needs to exercise it.

    ``arg_kinds`` hints the harness at argument types per position ("num", "text",
    "any", "date", "fmt" ...); ``returns`` is the kind of a non-NULL result:
    "numeric" (always INTEGER or REAL), "text" (always TEXT) or "any" (it depends on
    the arguments: COALESCE, MAX, REPLACE with an empty pattern ...); ``exact`` is
    False when the encoding over-approximates (the true value is always allowed, so
    proofs stay sound, but a model may be spurious and is then caught by validation
    on SQLite).
    """

    name: str
    encode: Callable[..., Any]
    min_args: int
    max_args: int | None
    arg_kinds: tuple[str, ...] = ()
    exact: bool = True
    aliases: tuple[str, ...] = field(default=())
    collation: bool = False  # compares its arguments: called with ``collation=<name>``
    returns: str = "any"  # one of RESULT_KINDS: what ``typeof()`` of a non-NULL result is
    differs_in: tuple[str, ...] = ()  # dialects whose function of this name means otherwise
    mutants: tuple[str, ...] = ()  # planted bugs in its encoding (``spotit.mutants``)
    # exact=False, and the encoding states where it is exact itself (Encoder.approximate
    # with exact_when): the fuzz checks its exactness there
    exact_range: bool = False

    def arity_ok(self, n: int) -> bool:
        return self.min_args <= n and (self.max_args is None or n <= self.max_args)


@dataclass(frozen=True)
class WindowFunctionSpec:
    """A window function's encoding (``spotit.encodings.windows``) and what the fuzz
    harness needs to call it: ``arg_kinds`` per argument position (as for scalar
    functions; ``"offset"``: a small constant), ``frame``: whether the frame clause
    changes its value (aggregates, FIRST_VALUE ...; not RANK or LAG)."""

    name: str
    encode: Callable[..., Any]
    min_args: int
    max_args: int
    arg_kinds: tuple[str, ...] = ()
    frame: bool = False
    star: bool = False  # COUNT(*)


def window_function(name: str, *, arity: tuple[int, int], arg_kinds: tuple[str, ...] = (),
                    frame: bool = False, star: bool = False) -> Callable:
    """Register the encoding of window function ``name`` (called with OVER)."""

    def deco(fn: Callable) -> Callable:
        if name in WINDOW_FUNCTIONS:
            raise RuntimeError(f"window function {name} registered twice")
        WINDOW_FUNCTIONS[name] = WindowFunctionSpec(name, fn, arity[0], arity[1], arg_kinds,
                                                    frame, star)
        return fn

    return deco


def encodes(cls: type) -> Callable:
    """Register the encoding of IR class ``cls`` (scalar or relational)."""

    def deco(fn: Callable) -> Callable:
        table = RELATIONAL if issubclass(cls, R.Rel) else SCALAR
        if cls in table:
            raise RuntimeError(f"encoding of {cls.__name__} registered twice")
        table[cls] = fn
        return fn

    return deco


def function(
    name: str,
    *aliases: str | tuple[str, tuple[int, int | None]],
    arity: tuple[int, int | None],
    arg_kinds: tuple[str, ...] = (),
    exact: bool = True,
    collation: bool = False,
    returns: str = "any",
    differs_in: tuple[str, ...],
    mutants: tuple[str, ...],
    exact_range: bool = False,
) -> Callable:
    """Register the encoding of scalar function ``name`` (and its aliases: a name, or
    ``(name, (min, max))`` for one of its own arity, as IFNULL is COALESCE of two).
    The binder reads every call through here: an alias becomes ``name``.

    ``collation``: the function compares its arguments (MIN, MAX, NULLIF) under the
    collation of its first argument that has one, passed as ``collation=``.
    ``returns``: the kind of its non-NULL results, one of ``RESULT_KINDS``.
    ``exact_range``: an ``exact=False`` encoding that states where it is exact itself.

    Two facts every registration states, so that none is forgotten:
    ``differs_in``: the dialects (``--dialect``) whose function of this name (or the one
    sqlglot translates into it) means something else, ``("*",)`` for every dialect but
    SQLite, ``()`` when all share SQLite's meaning: a call from those is refused.
    ``mutants``: the names of the planted bugs in its encoding (``spotit.mutants``), at
    least one, so that the fuzz is measured on it (``spotit fuzz --mutants``)."""
    if returns not in RESULT_KINDS:
        raise ValueError(f"function {name}: returns={returns!r}, not one of {RESULT_KINDS}")
    if isinstance(mutants, str) or isinstance(differs_in, str):
        raise TypeError(f"function {name}: mutants= and differs_in= are tuples of names")
    if not mutants:
        raise ValueError(f"function {name}: no mutant (register a planted bug in "
                         "spotit/mutants.py and name it in mutants=)")

    def deco(fn: Callable) -> Callable:
        names = tuple(a if isinstance(a, str) else a[0] for a in aliases)
        spec = FunctionSpec(name, fn, arity[0], arity[1], arg_kinds, exact, names,
                            collation, returns, tuple(differs_in), tuple(mutants), exact_range)
        for alias in (name, *aliases):
            n, own = (alias, spec) if isinstance(alias, str) else (
                alias[0], replace(spec, min_args=alias[1][0], max_args=alias[1][1]))
            if n in FUNCTIONS:
                raise RuntimeError(f"function {n} registered twice")
            FUNCTIONS[n] = own
        return fn

    return deco


def differing_functions() -> dict[str, tuple[str, ...]]:
    """Function name (aliases included) -> the dialects where it means otherwise."""
    return {n: spec.differs_in for n, spec in FUNCTIONS.items() if spec.differs_in}


def _concrete_subclasses(base: type) -> set[type]:
    """Public subclasses that are their module's attribute of that name.

    ``dataclass(slots=True)`` builds a new class, and the superseded one can
    linger in ``__subclasses__()`` until collected; it is not the IR class.
    """
    out = set()
    stack = [base]
    while stack:
        c = stack.pop()
        for sub in c.__subclasses__():
            module = sys.modules.get(sub.__module__)
            if not sub.__name__.startswith("_") and getattr(module, sub.__name__, None) is sub:
                out.add(sub)
            stack.append(sub)
    return out


def check_complete() -> None:
    """Every IR operator has exactly one encoding (raises otherwise)."""
    missing = sorted(
        c.__name__ for c in _concrete_subclasses(S.Expr) if c not in SCALAR
    ) + sorted(c.__name__ for c in _concrete_subclasses(R.Rel) if c not in RELATIONAL)
    if missing:
        raise RuntimeError(f"IR operators without an encoding: {', '.join(missing)}")
