"""Inner joins as a set of relations and a set of conditions.

An inner join is a filter on the cross product (``A JOIN B ON c`` is ``σ_c(A × B)``),
and the cross product is commutative and associative up to the order of columns,
so a tree of inner joins with the filters over it is a *set* of relations and a
*set* of conjuncts. SQLite's planner itself picks the join order, which is why no
result may depend on it: where one does (ties under ORDER BY ... LIMIT, a bare
column), it is one of SQLite's arbitrary choices either way.
"""

from __future__ import annotations

from itertools import permutations, product

from spotit.canonical.nulls import rejected
from spotit.canonical.regions import cross, flatten, is_region, joined_tables, row_refs, starts
from spotit.canonical.registry import rule
from spotit.canonical.trees import bottom_up, refs_to, reindex, sort_key
from spotit.ir import relational as R
from spotit.ir import scalar as S

# orderings of identical relations (a self-join) tried to find the least form
MAX_ORDERINGS = 120


@rule("inner joins as a set of relations")
def _inner_joins(plan: R.Rel, semantics: str) -> R.Rel:
    """Inner joins and the filters over them are a set of relations with a set of
    conjuncts: relations and conjuncts in a canonical order (duplicate conjuncts
    once), the joined columns picked back in the query's order."""
    return bottom_up(plan, _canonical_region)


def _canonical_region(node: R.Rel) -> R.Rel:
    if not is_region(node):
        return node
    region = flatten(node, root=True)
    best: tuple[str, list[R.Rel], list[S.Expr], list[int]] | None = None
    old_start = starts(region.leaves)
    for order in _orderings(region.leaves):
        leaves = [region.leaves[i] for i in order]
        new_start = starts(leaves)
        move: dict[int, int] = {}
        for new_pos, i in enumerate(order):
            for c in range(len(region.leaves[i].columns)):
                move[old_start[i] + c] = new_start[new_pos] + c
        conds = _canonical_conjuncts(reindex(tuple(region.conds), move.__getitem__))
        key = sort_key((tuple(leaves), tuple(conds)))
        if best is None or key < best[0]:
            best = (key, leaves, conds, [move[w] for w in region.where])
    assert best is not None
    _, leaves, conds, where = best
    body = cross(leaves, conds)
    if where != list(range(len(body.columns))):
        body = R.Project(body, refs_to(node.columns, where), node.columns)
    return node if body == node else body


def _orderings(leaves: list[R.Rel]):
    """Leaf orders sorted by key; identical leaves (a self-join) are interchangeable,
    so their orders are all tried (up to ``MAX_ORDERINGS``) and the least form wins."""
    keys = [sort_key(x) for x in leaves]
    ranked = sorted(range(len(leaves)), key=lambda i: keys[i])
    groups: list[list[int]] = []
    for i in ranked:
        if groups and keys[groups[-1][0]] == keys[i]:
            groups[-1].append(i)
        else:
            groups.append([i])
    count = 1
    for g in groups:
        for n in range(2, len(g) + 1):
            count *= n
    if count > MAX_ORDERINGS:
        yield ranked
        return
    for choice in product(*(permutations(g) for g in groups)):
        yield [i for g in choice for i in g]


def _canonical_conjuncts(conds: tuple[S.Expr, ...]) -> list[S.Expr]:
    unique = {sort_key(c): c for c in conds}
    return [unique[k] for k in sorted(unique)]


@rule("join to a referenced row that only checks it exists")
def _existence_joins(plan: R.Rel, semantics: str) -> R.Rel:
    """``A JOIN P ON A.c = P.k``, where A.c is a foreign key into P's unique key k and
    nothing of P but k is read, keeps each A row with a non-NULL c exactly once (the key
    is unique, and the foreign key says the row exists), and k is c on it: it is ``A
    WHERE A.c IS NOT NULL`` with k read as c. Only where the lookup is a plain ``=``
    (``Scan.references``); other columns joined to k must be equal to c."""
    return bottom_up(plan, _without_existence_joins)


def _without_existence_joins(node: R.Rel) -> R.Rel:
    r, tables = joined_tables(node)
    if r is None:
        return node
    region, read = r.region, r.read()
    for li, _, span in tables:
        # each `x = P.k` where x and k are the same value: (the condition, x, k)
        lookups, others = [], []
        for c in region.conds:
            if not row_refs(c) & span:
                continue
            pair = region.identity(c) or _plain_lookup(c, region, li)
            if pair is not None and (pair[0].index in span) != (pair[1].index in span):
                x, k = pair if pair[1].index in span else pair[::-1]
                lookups.append((c, x, k))
            else:
                others.append(c)
        keys = {k.index for _, _, k in lookups}
        if len(keys) != 1:
            continue
        (key,) = keys
        # P's columns may be read elsewhere only as that one key, which will read as x:
        # only where x and the key are the same value whenever they are equal
        elsewhere = read | {i for c in others for i in row_refs(c)}
        if elsewhere & (span - {key}) or (key in elsewhere and not all(
                region.identity(c) for c, _, _ in lookups)):
            continue
        children = sorted((x for _, x, _ in lookups
                           if references(region, x.index, key)), key=lambda x: x.index)
        if children:
            return _drop_leaf(r, li, lookups, children[0])
    return node


def _drop_leaf(r, li: int, lookups: list, child: S.ColumnRef) -> R.Rel:
    """The reader without leaf ``li``: its key reads as ``child``, every column joined
    to the key is equal to ``child``, and ``child`` is not NULL."""
    region = r.region
    lo, width = region.starts()[li], len(region.leaves[li].columns)
    key = lookups[0][2].index

    def moved(i: int) -> int:
        i = child.index if i == key else i
        return i if i < lo else i - width

    conds = [reindex(c, moved) for c in region.conds
             if not any(c is cond for cond, _, _ in lookups)]
    first = reindex(child, moved)
    rest = {x.index: x for _, x, _ in lookups if x.index != child.index}
    conds.extend(S.Compare("=", first, reindex(x, moved)) for x in rest.values())
    if first.index not in rejected(S.conjoin(conds) if conds else None):
        conds.append(S.Not(S.IsNull(first)))
    return r.rebuild(region.leaves[:li] + region.leaves[li + 1:], conds, moved)


def _plain_lookup(c: S.Expr, region, li: int) -> tuple[S.ColumnRef, S.ColumnRef] | None:
    """``c`` as (child, parent key) if it is the lookup of a plain foreign key (the
    same ``=`` SQLite's foreign key check uses, whatever the affinity)."""
    if not (isinstance(c, S.Compare) and c.op == "=" and isinstance(c.left, S.ColumnRef)
            and isinstance(c.right, S.ColumnRef) and c.left.depth == c.right.depth == 0):
        return None
    for x, k in ((c.left, c.right), (c.right, c.left)):
        if region.leaf_of(k.index)[0] == li and references(region, x.index, k.index):
            return x, k
    return None


def references(region, pos: int, key: int) -> bool:
    """Is position ``pos`` a plain foreign key into the table column at ``key``?"""
    li, ci = region.leaf_of(pos)
    pleaf, pcol = region.leaf_of(key)
    leaf, parent = region.leaves[li], region.leaves[pleaf]
    return (isinstance(leaf, R.Scan) and isinstance(parent, R.Scan) and li != pleaf
            and (ci, parent.table, pcol) in leaf.references)
