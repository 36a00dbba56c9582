"""Membership of a constant string in a constant SMT-LIB regular expression.

The solver-free path of Thm 1 (:mod:`spotit.smt.evaluate`) must decide
``(str.in_re s r)`` exactly as SMT-LIB defines it, for the ``re.*`` terms that
:mod:`spotit.smt.ops` builds. Python's ``re`` has no complement or intersection,
so the language is evaluated directly: for a start position, the set of end
positions its matches can reach (complement and intersection are then set
operations). The strings are short: the sets are small.
"""

from __future__ import annotations

from pysmt.fnode import FNode


class NotConstant(Exception):
    """The regular expression still holds a symbol: no answer without a solver."""


def in_re(s: str, r: FNode) -> bool:
    """Whether ``s`` is in the language of the constant RegLan term ``r``.

    Iterative (an explicit stack, not recursion): the order languages of
    :func:`spotit.smt.ops.re_below` nest once per character of their constant, and
    constants of hundreds of characters occur.

    Raises:
        NotConstant: ``r`` holds a non-constant part.
    """
    n = len(s)
    memo: dict[tuple[FNode, int], frozenset[int]] = {}
    stack = [(r, 0)]
    while stack:
        key = stack[-1]
        if key in memo:
            stack.pop()
            continue
        missing: list[tuple[FNode, int]] = []
        got = _ends(s, key[0], key[1], memo, missing)
        if missing:
            stack.extend(missing)
        else:
            memo[key] = got
            stack.pop()
    return n in memo[(r, 0)]


def _ends(s: str, node: FNode, i: int, memo: dict, missing: list) -> frozenset[int]:
    """The end positions of ``node``'s matches from ``i``, read from ``memo``; the
    sub-results not computed yet are appended to ``missing`` (the answer is then
    meaningless and asked again once they are)."""
    n = len(s)

    def sub(child: FNode, j: int) -> frozenset[int]:
        got = memo.get((child, j))
        if got is None:
            missing.append((child, j))
            return frozenset()
        return got

    if node.is_symbol():
        name = node.symbol_name()
        if name == "re.all":
            return frozenset(range(i, n + 1))
        if name == "re.allchar":
            return frozenset({i + 1}) if i < n else frozenset()
        if name == "re.none":
            return frozenset()
        raise NotConstant(name)
    if not node.is_function_application():
        raise NotConstant(str(node))
    name = node.function_name().symbol_name()
    args = node.args()
    if name == "str.to_re":
        word = _text(args[0])
        return frozenset({i + len(word)}) if s.startswith(word, i) else frozenset()
    if name == "re.range":
        lo, hi = _text(args[0]), _text(args[1])
        if len(lo) == 1 == len(hi) and i < n and lo <= s[i] <= hi:
            return frozenset({i + 1})
        return frozenset()
    if name == "re.++":
        return frozenset(k for j in sub(args[0], i) for k in sub(args[1], j))
    if name == "re.union":
        return sub(args[0], i) | sub(args[1], i)
    if name == "re.inter":
        return sub(args[0], i) & sub(args[1], i)
    if name == "re.comp":
        return frozenset(range(i, n + 1)) - sub(args[0], i)
    if name == "re.opt":
        return sub(args[0], i) | {i}
    if name in ("re.*", "re.+"):
        reached = set(sub(args[0], i))
        todo = list(reached)
        while todo:
            for k in sub(args[0], todo.pop()):
                if k not in reached:
                    reached.add(k)
                    todo.append(k)
        return frozenset(reached | {i}) if name == "re.*" else frozenset(reached)
    raise NotConstant(name)


def _text(node: FNode) -> str:
    if not node.is_string_constant():
        raise NotConstant(str(node))
    return str(node.constant_value())
