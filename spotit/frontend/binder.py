"""Name resolution and planning: syntax tree + schema -> relational IR.

The binder follows SQLite's resolution rules (``resolve.c``): unqualified
names search the FROM clause, then result-column aliases (WHERE, GROUP BY,
HAVING), then enclosing queries; ORDER BY prefers aliases and positions; a
double-quoted name that matches nothing is a string literal. Sugar is removed
here (BETWEEN, IN-lists, IIF, simple CASE, USING/NATURAL joins, RIGHT and FULL JOIN),
so every IR operator has one encoding.

Constructs the grammar accepts but SpotIt does not model raise
``Unsupported`` naming them; names that do not resolve raise ``BindError``.
"""

from __future__ import annotations

import dataclasses
import sqlite3
from dataclasses import dataclass, field

from spotit.concrete import apply_affinity
from spotit.errors import BindError, SpotItError, Unsupported
from spotit.frontend import ast as A
from spotit.frontend.now import time_value_missing
from spotit.frontend.parser import parse, parse_expression
from spotit.frontend.tables import ROWID_NAMES, table_rules
from spotit.ir import relational as R
from spotit.ir import scalar as S
from spotit.ir.types import (
    BINARY,
    MIXED_COMPARED,
    MODELLED_COLLATIONS,
    NO_AFFINITY,
    Affinity,
    Collation,
    affinity_of_declared_type,
)
from spotit.ir.walk import iter_exprs, iter_rels, rewrite
from spotit.schema import Schema, View, internal_table_construct, is_internal_table

AGGREGATES = {"COUNT", "SUM", "AVG", "MIN", "MAX", "TOTAL", "GROUP_CONCAT"}
# calls SQLite defines as another form (lang_corefunc.html), read as that form here:
# name -> (arity, the form; its letters are the arguments in order)
FUNCTION_FORMS = {
    "IIF": ((3, 3), "CASE WHEN x THEN y ELSE z END"),
    "LIKE": ((2, 3), "y LIKE x [ESCAPE z]"),
    "GLOB": ((2, 2), "y GLOB x"),
}


@dataclass
class _Col:
    table: str | None  # lower-cased alias of the FROM item, None for unnamed
    name: str
    affinity: Affinity
    hidden: bool = False  # right-hand USING/NATURAL column: not in *, not ambiguous
    collation: Collation = field(default_factory=Collation)
    in_star: bool = True  # listed by * (a table's hidden rowid is not)
    rowid: bool = False  # what the names rowid, oid and _rowid_ mean in this table



def registered_function(name: str):
    """The registry's entry for scalar function ``name`` (or an alias), or None."""
    import spotit.encodings  # noqa: F401  (every registration has run)
    from spotit.encodings.registry import FUNCTIONS

    return FUNCTIONS.get(name)

def _as_column(c: Collation | None) -> Collation:
    """A derived table's, view's or CTE's column: the collation of its expression,
    BINARY if none, and no longer explicit (SQLite's ``sqlite3SubqueryColumnTypes``)."""
    return Collation(c.name, origin=c.origin) if c is not None else Collation(BINARY)


def _cols_of(alias: str | None, rel: R.Rel) -> list[_Col]:
    return [_Col(alias, c.name, a, collation=_as_column(c.collation))
            for c, a in zip(rel.columns, _table_affinities(rel), strict=True)]


@dataclass
class _Scope:
    """The columns of one query's FROM clause, and the scope of the enclosing query."""

    cols: list[_Col]
    parent: _Scope | None
    tables: list[str] = field(default_factory=list)
    aliases: dict[str, A.Expr] = field(default_factory=dict)  # explicit AS names only
    ctes: dict[str, R.Rel] = field(default_factory=dict)  # CTEs visible to subqueries
    clause: str = ""  # the clause a subquery being bound sits in (its aliases' visibility)


@dataclass
class _AggState:
    """Aggregates met while binding the post-GROUP BY clauses of one query."""

    calls: list[R.AggCall] = field(default_factory=list)

    def add(self, call: R.AggCall) -> int:
        if call in self.calls:
            return self.calls.index(call)
        self.calls.append(call)
        return len(self.calls) - 1


@dataclass(frozen=True, slots=True)
class _AggSlot(S.Expr):
    """Placeholder for aggregate ``index`` until the Aggregate operator is built."""

    index: int


def bind(query: A.Query, schema: Schema) -> R.Rel:
    """Resolve ``query`` against ``schema`` into a relational plan."""
    plan = _Binder(schema).query(query, None, {})
    _no_indeterminate_affinity(plan)
    return plan


def _no_indeterminate_affinity(plan: R.Rel) -> None:
    """Refuse what would rest on a compound SELECT's indeterminate affinity.

    A compound read by an enclosing query (a FROM subquery, CTE, view, IN or scalar
    subquery) whose members' columns have different affinities: SQLite takes the
    column's affinity from any one member, and not always the same one within a query.
    It may push a WHERE into each member (flattening), so each compares under its own;
    it may store the rows under the leftmost member's affinity, converting them; IN
    takes the rightmost member's. So ``c = '1'`` may or may not match an INTEGER 1.
    The outermost compound's affinities are never read.

    Read as a table (FROM, a CTE, a view), such a column is not refused outright
    (``_table_affinities``): where its values cannot depend on the plan, it gets
    ``Affinity.MIXED``, and only a comparison that reads it is refused, here. A
    compound IN or a scalar subquery reads directly must agree in every column."""
    direct: set[int] = set()  # the compounds a subquery expression reads directly
    for e, _ in iter_exprs(plan):
        if isinstance(e, (S.InSubquery, S.ScalarSubquery)):
            direct |= _compound_chain(e.query)
        if isinstance(e, (S.Compare, S.Is)):
            read = (S.affinity_of(e.left), S.affinity_of(e.right))
        elif isinstance(e, S.InSubquery):
            read = (*(S.affinity_of(x) for x in (e.operand, *e.rest)),
                    *(c.affinity for c in e.query.columns))
        elif isinstance(e, S.StoredAs):
            read = (e.affinity,)
        else:
            continue
        if Affinity.MIXED in read:
            raise Unsupported(MIXED_COMPARED)
    outermost = _compound_chain(plan)
    for rel in iter_rels(plan):
        if isinstance(rel, R.SetOp) and id(rel) not in outermost:
            # refuses what a table read may convert (its readers got the rest), and any
            # difference at all where a subquery expression reads the compound
            _table_affinities(rel, direct=id(rel) in direct)


def _indeterminate(i: int, a: Affinity, b: Affinity) -> Unsupported:
    return Unsupported(f"a compound SELECT read by an enclosing query whose column {i + 1} "
                       f"has different affinities in its members ({a.name} and {b.name}: "
                       "SQLite leaves the column's affinity indeterminate)")


def _table_affinities(rel: R.Rel, *, direct: bool = False) -> list[Affinity]:
    """The affinities of ``rel``'s columns as a query reading it as a table sees them
    (``direct``: as IN or a scalar subquery reading it sees them -- every member must
    agree).

    For a compound, per column: the leftmost member's where every other member's is
    the same, or the literal NULL (padding: ``UNION ALL SELECT x, NULL``), the
    leftmost's not being NULL -- a NULL is never converted and compares as NULL, so
    every plan SQLite picks reads the column under the leftmost member's affinity
    (checked on SQLite: tests/test_compound_affinity.py). Otherwise ``MIXED`` where the
    leftmost member's converts nothing (NONE, BLOB: the values are the members' own
    in every plan, only comparisons differ), and refused where it does (stored under
    it, a member's values change)."""
    compound = rel
    while isinstance(compound, R.Sort):
        compound = compound.input
    if not isinstance(compound, R.SetOp):
        return [c.affinity for c in rel.columns]
    members = _members(compound)
    out = []
    for i, first in enumerate(members[0].columns):
        padded = not direct and not _null_column(members[0], i)
        other = next((m.columns[i].affinity for m in members[1:]
                      if m.columns[i].affinity != first.affinity
                      and not (padded and _null_column(m, i))), None)
        if other is None:
            out.append(first.affinity)
        elif not direct and first.affinity in (Affinity.NONE, Affinity.BLOB):
            out.append(Affinity.MIXED)
        else:
            raise _indeterminate(i, first.affinity, other)
    return out


def _compound_chain(rel: R.Rel) -> set[int]:
    """The ids of ``rel`` and, through its ORDER BY/LIMIT, of its compound's nodes:
    what reads the compound's columns directly."""
    found: set[int] = set()
    stack = [rel]
    while stack:
        node = stack.pop()
        found.add(id(node))
        if isinstance(node, R.Sort):
            stack.append(node.input)
        elif isinstance(node, R.SetOp):
            stack.extend((node.left, node.right))
    return found


def _members(rel: R.Rel) -> list[R.Rel]:
    """A compound's members, left to right."""
    if isinstance(rel, R.SetOp):
        return _members(rel.left) + _members(rel.right)
    return [rel]


def _null_column(member: R.Rel, i: int) -> bool:
    """Whether column ``i`` of a compound's member is the literal NULL in every row."""
    while isinstance(member, (R.Distinct, R.Filter)):
        member = member.input
    if isinstance(member, R.Project):
        e = member.exprs[i]
        return isinstance(e, S.Const) and e.value is None
    if isinstance(member, R.Values):
        return all(isinstance(row[i], S.Const) and row[i].value is None
                   for row in member.rows)
    return False


def bind_row_expression(schema: Schema, table: str, columns: list[R.OutColumn],
                        text: str) -> S.Expr:
    """An expression over one row of ``table`` whose columns are ``columns`` (a CHECK
    constraint, a generated column, an index term): ColumnRef(0, i) is column i."""
    alias = table.lower()
    scope = _Scope([_Col(alias, c.name, c.affinity, collation=c.collation or Collation())
                    for c in columns], None, [alias])
    return _Binder(schema).expr(parse_expression(text), scope, clause="CHECK")


class _Binder:
    def __init__(self, schema: Schema):
        self.schema = schema
        self._views_open: list[str] = []  # views being expanded (a cycle is an error)
        # inner-join ON conditions naming tables joined later, per FROM clause
        self._deferred_on: list[list[A.Expr]] = []
        self._select_aliases: list[dict[str, A.Expr]] = []  # per SELECT whose FROM is bound
        self._win: _WinState | None = None  # window calls met in the current SELECT

    # ------------------------------------------------------------------ queries

    def query(self, q: A.Query, outer: _Scope | None, ctes: dict[str, R.Rel]) -> R.Rel:
        if q.with_:
            ctes = dict(ctes)
            for cte in q.with_:
                if _names_table(cte.query, cte.name):
                    # SQLite reads a CTE that names itself as recursive, with or without
                    # the RECURSIVE keyword
                    ctes[cte.name.lower()] = self.recursive(cte, outer, ctes)
                    continue
                rel = self.query(cte.query, outer, ctes)
                if cte.columns is not None:
                    if len(cte.columns) != len(rel.columns):
                        raise BindError(
                            f"table {cte.name} has {len(rel.columns)} values for "
                            f"{len(cte.columns)} columns",
                            pos=cte.pos,
                        )
                    rel = _rename(rel, cte.columns)
                ctes[cte.name.lower()] = rel
        limit, offset = self._limit(q)
        if isinstance(q.body, A.Select):
            return self.select(q.body, outer, ctes, q.order_by, limit, offset)
        body = self.body(q.body, outer, ctes)
        if not q.order_by and limit is None:
            return body
        keys = tuple(self._compound_order_key(o, q.body, body) for o in q.order_by)
        return R.Sort(body, keys, limit, offset)

    def recursive(self, cte: A.CommonTable, outer, ctes: dict[str, R.Rel]) -> R.Rel:
        """``name AS (init UNION [ALL] step)``: SQLite's shape of a recursive CTE, with
        the step (the last SELECT) naming the CTE exactly once, in its FROM."""
        q = cte.query
        where = f"recursive CTE {cte.name}"
        if q.with_:
            raise Unsupported(f"a WITH inside the {where}", pos=q.pos)
        if q.order_by or q.limit is not None or q.offset is not None:
            raise Unsupported(f"ORDER BY or LIMIT in the {where}", pos=q.pos)
        body = q.body
        if not isinstance(body, A.Compound) or body.op.upper() not in ("UNION", "UNION ALL"):
            raise BindError(f"{where} must be an initial SELECT, UNION or UNION ALL, and a "
                            "recursive SELECT", pos=q.pos)
        if _names_table(body.left, cte.name):
            raise Unsupported(f"several recursive SELECTs in the {where}", pos=q.pos)
        step_ast = body.right
        if not isinstance(step_ast, A.Select) or not _once_in_from(step_ast, cte.name):
            raise Unsupported(f"the {where} naming itself other than once in the FROM of "
                              "its recursive SELECT", pos=q.pos)
        if step_ast.group_by or step_ast.distinct or step_ast.having is not None:
            raise BindError(f"the recursive SELECT of the {where} may not be an aggregate "
                            "or DISTINCT", pos=q.pos)
        init = self.body(body.left, outer, ctes)
        names = cte.columns if cte.columns is not None else tuple(
            c.name for c in init.columns)
        if len(names) != len(init.columns):
            raise BindError(f"table {cte.name} has {len(init.columns)} values for "
                            f"{len(names)} columns", pos=cte.pos)
        init = _rename(init, names)
        ref = R.RecursiveRef(cte.name, init.columns)
        step = self.select(step_ast, outer, {**ctes, cte.name.lower(): ref}, (), None, 0)
        if len(step.columns) != len(init.columns):
            raise BindError(f"SELECTs to the left and right of {body.op} do not have the "
                            "same number of result columns", pos=body.pos)
        return R.Recursive(init, _rename(step, names), body.op.upper() == "UNION ALL", ref)

    def body(self, b: A.Select | A.Values | A.Compound, outer, ctes) -> R.Rel:
        if isinstance(b, A.Select):
            return self.select(b, outer, ctes, (), None, 0)
        if isinstance(b, A.Values):
            return self.values(b, outer)
        left = self.body(b.left, outer, ctes)
        right = self.body(b.right, outer, ctes)
        if len(left.columns) != len(right.columns):
            raise BindError(
                f"SELECTs to the left and right of {b.op} do not have the same number of "
                "result columns",
                pos=b.pos,
            )
        op = b.op.upper()
        return R.SetOp(op.split()[0], op == "UNION ALL", left, right)

    def values(self, v: A.Values, outer) -> R.Rel:
        scope = _Scope([], outer, ctes=outer.ctes if outer is not None else {})
        rows = tuple(tuple(self.expr(e, scope) for e in row) for row in v.rows)
        width = len(rows[0])
        if any(len(r) != width for r in rows):
            raise BindError("all VALUES must have the same number of terms", pos=v.pos)
        out = tuple(R.OutColumn(f"column{i + 1}", NO_AFFINITY, S.collation_of(rows[0][i]))
                    for i in range(width))
        return R.Values(rows, out)

    def _limit(self, q: A.Query) -> tuple[int | None, int]:
        limit = self._constant_int(q.limit, "LIMIT") if q.limit is not None else None
        offset = self._constant_int(q.offset, "OFFSET") if q.offset is not None else 0
        if limit is not None and limit < 0:
            limit = None  # SQLite: a negative LIMIT means no limit
        return limit, max(offset, 0)

    def _constant_int(self, e: A.Expr, what: str) -> int:
        bound = self.expr(e, _Scope([], None))
        value = constant_value(bound)
        if value is _NOT_CONSTANT:
            raise Unsupported(f"non-constant {what}", pos=e.pos)
        if isinstance(value, str):  # SQLite gives it NUMERIC affinity first: '2 ' is 2
            value = apply_affinity(value, Affinity.NUMERIC)
        if isinstance(value, float) and value.is_integer() and -(2**63) <= value < 2**63:
            value = int(value)
        if not isinstance(value, int):
            raise BindError(f"datatype mismatch: {what} must be an integer", pos=e.pos)
        return value

    # ------------------------------------------------------------------ SELECT

    def select(self, sel: A.Select, outer, ctes, order_by, limit, offset) -> R.Rel:
        saved = self._win
        self._win = None  # window functions: only in this SELECT's result list and ORDER BY
        try:
            return self._select(sel, outer, ctes, order_by, limit, offset)
        finally:
            self._win = saved

    def _select(self, sel: A.Select, outer, ctes, order_by, limit, offset) -> R.Rel:
        named = {}
        for wname, spec in sel.windows:
            if wname.lower() in named:
                raise BindError(f"duplicate WINDOW name: {wname}", pos=spec.pos)
            named[wname.lower()] = spec
        # Explicit AS aliases are visible in WHERE, GROUP BY, HAVING, ORDER BY and ON, and
        # in their subqueries (after real columns, except a bare ORDER BY name, where they
        # come first).
        aliases = _aliases(sel)
        if sel.from_ is None:
            rel: R.Rel = R.Values(((),), ())
            scope = _Scope([], outer, ctes=ctes)
        else:
            self._deferred_on.append([])
            self._select_aliases.append(aliases)
            try:
                rel, scope = self.from_item(sel.from_, outer, ctes)
            finally:
                self._select_aliases.pop()
        scope.aliases = aliases
        if sel.from_ is not None:
            # SQLite reads an inner join's ON like WHERE: it may name tables joined
            # later in the FROM clause (and result-column aliases), so such conditions
            # filter the whole FROM.
            for on in self._deferred_on.pop():
                rel = R.Filter(rel, self.expr(on, scope, clause="ON"))
        scope.ctes = ctes

        items = self._expand_select_list(sel, scope)
        names = [item[1] for item in items]

        if sel.where is not None:
            pred = self.expr(sel.where, scope, clause="WHERE")
            rel = R.Filter(rel, pred)

        is_agg = bool(sel.group_by) or any(
            _has_aggregate(e) for e in [item[0] for item in items if item[0] is not None]
            + ([sel.having] if sel.having is not None else [])
            + [o.expr for o in order_by]
        )
        if sel.having is not None and not is_agg:
            raise BindError("a GROUP BY clause is required before HAVING", pos=sel.having.pos)

        aggs = _AggState() if is_agg else None
        wins = self._win = _WinState(named)
        select_exprs = []
        for ast_e, _name, bound, _alias in items:
            if bound is not None:  # from a star: already a ColumnRef
                select_exprs.append(bound)
            else:
                select_exprs.append(self.expr(ast_e, scope, aggs=aggs))

        order_info = [self._order_term(o, items, select_exprs, scope, aggs) for o in order_by]
        self._win = None

        if is_agg:
            keys = tuple(self._group_key(g, items, select_exprs, scope) for g in sel.group_by)
            having = (self.expr(sel.having, scope, clause="HAVING", aggs=aggs)
                      if sel.having is not None else None)
            rebase = _Rebase(keys, aggs)
            select_exprs = [rebase(e) for e in select_exprs]
            having = rebase(having) if having is not None else None
            order_info = [(i, rebase(e) if e is not None else None, k, c)
                          for i, e, k, c in order_info]
            out = tuple(
                R.OutColumn(f"key{i}", S.affinity_of(k), S.collation_of(k))
                for i, k in enumerate(keys)
            ) + tuple(
                R.OutColumn(f"agg{i}", S.affinity_of(c.arg) if c.func == "BARE" else NO_AFFINITY,
                            _aggregate_collation(c))
                for i, c in enumerate(aggs.calls)
            )
            wins.calls = [rebase_window(rebase, c) for c in wins.calls]
            rel = R.Aggregate(rel, keys, tuple(aggs.calls), out)
            if having is not None:
                rel = R.Filter(rel, having)
        if wins.calls:
            # windows see the rows after WHERE, GROUP BY and HAVING; their values follow
            # those rows' columns
            width = len(rel.columns)
            calls = tuple(wins.calls)
            rel = R.Window(rel, calls, rel.columns + tuple(
                R.OutColumn(f"window{i}", NO_AFFINITY, _window_collation(c))
                for i, c in enumerate(calls)))
            slots = _WindowColumns(width, calls)
            select_exprs = [slots(e) for e in select_exprs]
            order_info = [(i, slots(e) if e is not None else None, k, c)
                          for i, e, k, c in order_info]

        out_cols = tuple(
            R.OutColumn(name or f"column{i + 1}", S.affinity_of(e), S.collation_of(e))
            for i, (e, name) in enumerate(zip(select_exprs, names, strict=True))
        )
        n = len(select_exprs)
        if not order_by and limit is None:
            proj: R.Rel = R.Project(rel, tuple(select_exprs), out_cols)
            return R.Distinct(proj) if sel.distinct else proj

        # ORDER BY terms either name a result column or are extra expressions.
        extra: list[S.Expr] = []
        sort_keys = []
        for (index, expr, okey, collation) in order_info:
            if index is None:
                assert expr is not None
                if expr in select_exprs:
                    index = select_exprs.index(expr)
                else:
                    if expr not in extra:
                        extra.append(expr)
                    index = n + extra.index(expr)
            ref = S.ColumnRef(0, index, _affinity_at(index, select_exprs, extra))
            if collation is None:
                collation = S.collation_name(_expr_at(index, select_exprs, extra))
            sort_keys.append(R.SortKey(ref, okey.descending, _nulls_first(okey), collation))
        ext_cols = out_cols + tuple(
            R.OutColumn(f"_order{i}", S.affinity_of(e), S.collation_of(e))
            for i, e in enumerate(extra)
        )
        proj = R.Project(rel, tuple(select_exprs) + tuple(extra), ext_cols)
        base: R.Rel = R.Distinct(proj) if sel.distinct else proj
        if sel.distinct and extra:
            base = _distinct_with_order_terms(proj, n)
        sorted_rel: R.Rel = R.Sort(base, tuple(sort_keys), limit, offset)
        if extra:
            sorted_rel = R.Project(
                sorted_rel,
                tuple(S.ColumnRef(0, i, c.affinity, c.name, c.collation)
                      for i, c in enumerate(out_cols)),
                out_cols,
            )
        return sorted_rel

    def _expand_select_list(self, sel: A.Select, scope: _Scope):
        """(ast expr or None, output name, bound ColumnRef for star items, explicit alias)."""
        items: list[tuple[A.Expr | None, str, S.Expr | None, str | None]] = []
        for rc in sel.columns:
            if isinstance(rc, A.StarColumn):
                if rc.table is None:
                    if not scope.cols:
                        raise BindError("no tables specified", pos=rc.pos)
                    chosen = [(i, c) for i, c in enumerate(scope.cols)
                              if not c.hidden and c.in_star]
                else:
                    t = rc.table.lower()
                    if t not in scope.tables:
                        raise BindError(f"no such table: {rc.table}", pos=rc.pos)
                    chosen = [(i, c) for i, c in enumerate(scope.cols) if c.table == t]
                for i, c in chosen:
                    items.append((None, c.name, S.ColumnRef(0, i, c.affinity, c.name,
                                                            c.collation), None))
            else:
                name = rc.alias
                if name is None and isinstance(rc.expr, A.Name):
                    name = rc.expr.parts[-1]
                if name is None:
                    name = _display(rc.expr)
                items.append((rc.expr, name, None, rc.alias))
        return items

    def _order_term(self, o: A.OrderItem, items, select_exprs, scope, aggs):
        """(result index or None, bound expression or None, the item, its collation or
        None when it is that of the expression sorted by)."""
        e = o.expr
        collation = None
        if isinstance(e, A.Collate):
            collation = _collation(e)
            e = e.operand
        if isinstance(e, A.Name) and len(e.parts) == 1:
            low = e.parts[0].lower()
            for i, item in enumerate(items):
                if item[3] is not None and item[3].lower() == low:
                    return (i, None, o, collation)
        pos = _position(e, len(items), "ORDER BY")
        if pos is not None:
            return (pos, None, o, collation)
        return (None, self.expr(e, scope, clause="ORDER BY", aggs=aggs), o, collation)

    def _group_key(self, g: A.Expr, items, select_exprs, scope) -> S.Expr:
        pos = _position(g, len(items), "GROUP BY")
        if pos is not None:
            e = select_exprs[pos]
            if _contains_slot(e):
                raise BindError("aggregate functions are not allowed in the GROUP BY clause",
                                pos=g.pos)
            return e
        bound = self.expr(g, scope, clause="GROUP BY")
        return bound

    def _compound_order_key(self, o: A.OrderItem, body, rel: R.Rel) -> R.SortKey:
        e = o.expr
        collation = None
        if isinstance(e, A.Collate):
            collation = _collation(e)
            e = e.operand
        first = body
        while isinstance(first, A.Compound):
            first = first.left
        index = _position(e, len(rel.columns), "ORDER BY")
        if index is None and isinstance(e, A.Name):
            low = e.parts[-1].lower()
            for i, c in enumerate(rel.columns):
                if c.name.lower() == low:
                    index = i
                    break
        if index is None and isinstance(first, A.Select):
            for i, rc in enumerate(first.columns):
                if isinstance(rc, A.ResultColumn) and rc.expr == e:
                    index = i
                    break
        if index is None:
            raise BindError(
                "ORDER BY term does not match any column in the result set", pos=o.pos
            )
        ref = S.ColumnRef(0, index, rel.columns[index].affinity, rel.columns[index].name)
        if collation is None:
            collation = R.compound_collations(rel)[index]
        return R.SortKey(ref, o.descending, _nulls_first(o), collation)

    # ------------------------------------------------------------------ FROM

    def from_item(self, f: A.FromItem, outer, ctes) -> tuple[R.Rel, _Scope]:
        if isinstance(f, A.TableRef):
            alias = (f.alias or f.name).lower()
            cte = ctes.get(f.name.lower()) if f.schema is None else None
            if cte is not None:
                return cte, _Scope(_cols_of(alias, cte), outer, [alias])
            table = self.schema.table(f.name)
            if table is None:
                view = self.schema.view(f.name)
                if view is not None:
                    return self._view(view, alias, outer, f.pos)
                if is_internal_table(f.name):
                    raise Unsupported(internal_table_construct(f.name), pos=f.pos)
                raise BindError(f"no such table: {f.name}", pos=f.pos)
            try:
                rules = table_rules(self.schema, table)
            except Unsupported as e:
                raise Unsupported(e.message, pos=f.pos) from None
            rel = rules.relation
            cols = _cols_of(alias, rel)
            if rules.rowid is not None:
                cols[rules.rowid].rowid = True
                if rules.rowid == len(cols) - 1 and table.has_rowid:
                    cols[-1].in_star = False
            return rel, _Scope(cols, outer, [alias])
        if isinstance(f, A.SubqueryRef):
            rel = self.query(f.query, outer, ctes)
            alias = f.alias.lower() if f.alias else None
            return rel, _Scope(_cols_of(alias, rel), outer, [alias] if alias else [])
        if isinstance(f, A.TableFunctionRef):
            raise Unsupported(f"table-valued function {f.name}", pos=f.pos)
        if isinstance(f, A.Join):
            return self.join(f, outer, ctes)
        raise Unsupported(type(f).__name__, pos=f.pos)

    def _view(self, view: View, alias: str, outer, pos) -> tuple[R.Rel, _Scope]:
        """A view is its query, read like a derived table under the view's column
        names (expanded in full at each use)."""
        if view.problem:
            raise Unsupported(view.problem, pos=pos)
        if view.name.lower() in self._views_open:
            raise BindError(f"view {view.name} is circularly defined", pos=pos)
        self._views_open.append(view.name.lower())
        try:
            rel = self.query(parse(view.query), None, {})
        except SpotItError as e:
            raise type(e)(f"in view {view.name}: {e.message}", pos=pos) from None
        finally:
            self._views_open.pop()
        if view.columns and len(view.columns) == len(rel.columns):
            rel = _rename(rel, view.columns)
        return rel, _Scope(_cols_of(alias, rel), outer, [alias])

    def join(self, j: A.Join, outer, ctes) -> tuple[R.Rel, _Scope]:
        kind = j.kind.upper()
        if kind == "FULL" and (j.using or j.natural):
            # the shared column is the first non-NULL of the two sides' there
            raise Unsupported("FULL OUTER JOIN with USING or NATURAL", pos=j.pos)
        if kind == "RIGHT" and (j.using or j.natural):
            # SQLite reads the shared column from the right table there (in * and
            # t.* too), where LEFT and inner joins read the left one
            raise Unsupported("RIGHT JOIN with USING or NATURAL", pos=j.pos)
        left, ls = self.from_item(j.left, outer, ctes)
        right, rs = self.from_item(j.right, outer, ctes)
        dup = set(ls.tables) & set(rs.tables) - {None}
        if dup:
            name = next(iter(dup))
            raise BindError(f"ambiguous table name: {name} appears twice in FROM", pos=j.pos)
        nl = len(ls.cols)
        cols = [dataclasses.replace(c) for c in ls.cols] + [dataclasses.replace(c) for c in rs.cols]
        # an outer join's ON may name the SELECT's result-column aliases, as WHERE may (an
        # inner join's ON that names something not joined yet is bound once the whole FROM
        # is: there a column of a table joined later comes before an alias, as in SQLite)
        outer_join = kind in ("LEFT", "RIGHT", "FULL") and self._select_aliases
        scope = _Scope(cols, outer, ls.tables + rs.tables,
                       aliases=dict(self._select_aliases[-1]) if outer_join else {})
        using = j.using
        if j.natural:
            lnames = {c.name.lower() for c in ls.cols if not c.hidden and c.in_star}
            using = tuple(c.name for c in rs.cols
                          if not c.hidden and c.in_star and c.name.lower() in lnames)
        cond: S.Expr | None = None
        if using:
            terms = []
            for name in using:
                li = _find_visible(ls.cols, name)
                ri = _find_visible(rs.cols, name)
                if li is None or ri is None:
                    raise BindError(
                        f"cannot join using column {name} - column not present in both tables",
                        pos=j.pos,
                    )
                lref = S.ColumnRef(0, li, ls.cols[li].affinity, name, ls.cols[li].collation)
                rref = S.ColumnRef(0, nl + ri, rs.cols[ri].affinity, name,
                                   rs.cols[ri].collation)
                terms.append(S.Compare("=", lref, rref))
                scope.cols[nl + ri].hidden = True
            cond = S.conjoin(terms)
        if j.on is not None:
            try:
                on = self.expr(j.on, scope, clause="ON")
            except BindError as e:
                if kind in ("LEFT", "RIGHT", "FULL") or not self._deferred_on \
                        or not str(e).startswith("no such column"):
                    raise
                self._deferred_on[-1].append(j.on)  # bound once the whole FROM is known
                on = None
            if on is not None:
                cond = on if cond is None else S.And(cond, on)
        if kind == "RIGHT":
            # a RIGHT JOIN b == b LEFT JOIN a, with columns put back in a, b order.
            nr = len(rs.cols)
            swap = {i: (i + nr if i < nl else i - nl) for i in range(nl + nr)}

            def remap(e: S.Expr, level: int) -> S.Expr | None:
                if isinstance(e, S.ColumnRef) and e.depth == level:
                    return dataclasses.replace(e, index=swap[e.index])
                return None

            swapped = R.Join("LEFT", right, left, rewrite(cond, remap) if cond else None)
            refs = tuple(
                S.ColumnRef(0, swap[i], c.affinity, c.name, c.collation)
                for i, c in enumerate(cols)
            )
            out = tuple(R.OutColumn(c.name, c.affinity, c.collation) for c in cols)
            return R.Project(swapped, refs, out), scope
        if kind == "FULL":
            return _full_join(left, right, cond), scope
        return R.Join("LEFT" if kind == "LEFT" else "INNER", left, right, cond), scope

    # ------------------------------------------------------------------ expressions

    def expr(self, e: A.Expr, scope: _Scope, *, clause: str = "", aggs: _AggState | None = None
             ) -> S.Expr:
        b = self.expr
        kw = {"clause": clause, "aggs": aggs}
        if isinstance(e, A.Subquery | A.Exists | A.InQuery):
            scope.clause = clause  # what the subquery may name of this query's aliases
        if isinstance(e, A.Literal):
            if isinstance(e.value, bytes):
                raise Unsupported("BLOB literal", pos=e.pos)
            return S.Const(e.value)
        if isinstance(e, A.Name):
            return self.name(e, scope, clause, aggs)
        if isinstance(e, A.Unary):
            x = b(e.operand, scope, **kw)
            if e.op == "NOT":
                return S.Not(x)
            if e.op == "-":
                return S.Negate(x)
            if e.op == "+":
                return S.Call("+", (x,))  # identity that drops affinity, as in SQLite
            raise Unsupported(f"operator {e.op}", pos=e.pos)
        if isinstance(e, A.Binary):
            return self.binary(e, scope, kw)
        if isinstance(e, A.IsNull):
            x = S.IsNull(b(e.operand, scope, **kw))
            return S.Not(x) if e.negated else x
        if isinstance(e, A.Like):
            if e.op not in ("LIKE", "GLOB"):
                raise Unsupported(e.op, pos=e.pos)
            esc = b(e.escape, scope, **kw) if e.escape is not None else None
            x = S.Like(b(e.operand, scope, **kw), b(e.pattern, scope, **kw), esc, e.op == "GLOB")
            return S.Not(x) if e.negated else x
        if isinstance(e, A.Between):
            x = b(e.operand, scope, **kw)
            lo = b(e.low, scope, **kw)
            hi = b(e.high, scope, **kw)
            r = S.And(S.Compare(">=", x, lo), S.Compare("<=", x, hi))
            return S.Not(r) if e.negated else r
        if isinstance(e, A.InList):
            if isinstance(e.operand, A.Row) and len(e.operand.items) != 1:
                return self.row_in_list(e, scope, kw)
            x = b(e.operand, scope, **kw)
            if len(e.items) == 1 and _is_constant_ast(e.items[0]):
                # SQLite's parser turns ``x IN (c)`` into ``x = +c`` (``x = 421`` itself
                # where c is a literal: one canonical form for both spellings)
                terms = [S.Compare("=", x, _plus(b(e.items[0], scope, **kw)))]
            else:
                # ``x IN (a, b)`` is ``x = +a OR x = +b`` (datatype3.html §4.2): the items
                # have no affinity, even columns; the list is compared under x's
                # collation only
                x = S.Collate(x, S.collation_name(x))
                terms = [S.Compare("=", x, _plus(b(i, scope, **kw))) for i in e.items]
            r = S.disjoin(terms) if terms else S.Const(0)
            return S.Not(r) if e.negated else r
        if isinstance(e, A.InQuery):
            if isinstance(e.operand, A.Row) and len(e.operand.items) != 1:
                r = self.row_in_query(e.operand, e.query, scope, kw)
                return S.Not(r) if e.negated else r
            x = b(e.operand, scope, **kw)
            q = self.subquery(e.query, scope, want_one_column=True)
            r = S.InSubquery(x, q)
            return S.Not(r) if e.negated else r
        if isinstance(e, A.InTable):
            raise Unsupported("IN table-name", pos=e.pos)
        if isinstance(e, A.Exists):
            return S.Exists(self.subquery(e.query, scope, want_one_column=False))
        if isinstance(e, A.Subquery):
            return S.ScalarSubquery(self.subquery(e.query, scope, want_one_column=True))
        if isinstance(e, A.Case):
            whens = []
            op = b(e.operand, scope, **kw) if e.operand is not None else None
            for w, t in e.whens:
                cond = b(w, scope, **kw)
                if op is not None:
                    cond = S.Compare("=", op, cond)
                whens.append((cond, b(t, scope, **kw)))
            else_ = b(e.else_, scope, **kw) if e.else_ is not None else S.Const(None)
            return S.Case(tuple(whens), else_)
        if isinstance(e, A.Cast):
            return S.Cast(b(e.operand, scope, **kw), affinity_of_declared_type(e.type_name),
                          e.type_name)
        if isinstance(e, A.Collate):
            return S.Collate(b(e.operand, scope, **kw), _collation(e))
        if isinstance(e, A.Function):
            return self.function(e, scope, clause, aggs)
        if isinstance(e, A.Row):
            if len(e.items) == 1:
                return b(e.items[0], scope, **kw)
            raise Unsupported("row value", pos=e.pos)
        if isinstance(e, A.Parameter):
            raise Unsupported(f"parameter {e.text}", pos=e.pos)
        raise Unsupported(type(e).__name__, pos=e.pos)

    def binary(self, e: A.Binary, scope: _Scope, kw) -> S.Expr:
        if isinstance(e.left, A.Row) or isinstance(e.right, A.Row):
            lrow = isinstance(e.left, A.Row) and len(e.left.items) != 1
            rrow = isinstance(e.right, A.Row) and len(e.right.items) != 1
            if lrow or rrow:
                return self.row_comparison(e, scope, kw)
        op = e.op.upper()
        if op in ("AND", "OR"):
            terms = [self.expr(t, scope, **kw) for t in _chain_operands(e, op)]
            return S.conjoin(terms) if op == "AND" else S.disjoin(terms)
        left = self.expr(e.left, scope, **kw)
        right = self.expr(e.right, scope, **kw)
        if op in ("=", "!=", "<", "<=", ">", ">="):
            return S.Compare(op, left, right)
        if op == "IS":
            return S.Is(left, right)
        if op == "IS NOT":
            return S.Not(S.Is(left, right))
        if op in ("+", "-", "*", "/", "%"):
            return S.Arith(op, left, right)
        if op == "||":
            return S.Concat(left, right)
        if op in ("->", "->>"):  # registered as functions (spotit.encodings.jsonfns)
            return S.Call(op, (left, right))
        raise Unsupported(f"operator {e.op}", pos=e.pos)

    def function(self, f: A.Function, scope: _Scope, clause: str, aggs: _AggState | None
                 ) -> S.Expr:
        name = f.name.upper()
        if f.over is not None:
            return self.window_call(f, scope, clause, aggs)
        if _is_aggregate_call(dataclasses.replace(f, over=None)):
            if aggs is None:
                where = clause or "this context"
                raise BindError(f"misuse of aggregate: {name}() in {where}", pos=f.pos)
            # Arguments see the FROM row; an aggregate inside them is a misuse.
            args = tuple(self.expr(a, scope, clause=f"{name}()") for a in f.args)
            if f.filter is not None:
                cond = self.expr(f.filter, scope, clause=f"{name}() FILTER")
                f, args = _filtered(f, args, cond)
            if f.star or (name == "COUNT" and not args):
                if name != "COUNT":
                    raise BindError(f"wrong number of arguments to function {name}()", pos=f.pos)
                return _AggSlot(aggs.add(R.AggCall("COUNT")))
            if name == "GROUP_CONCAT":
                if not 1 <= len(args) <= 2:
                    raise BindError("wrong number of arguments to function GROUP_CONCAT()",
                                    pos=f.pos)
                sep = args[1] if len(args) == 2 else None
                if sep == S.Const(","):  # SQLite's default: one call, one canonical form
                    sep = None
                return _AggSlot(aggs.add(R.AggCall(name, args[0], f.distinct, sep)))
            if len(args) != 1:
                raise BindError(f"wrong number of arguments to function {name}()", pos=f.pos)
            return _AggSlot(aggs.add(R.AggCall(name, args[0], f.distinct)))
        if f.distinct or f.star:
            raise BindError(f"DISTINCT/* is only allowed in aggregate functions: {name}()",
                            pos=f.pos)
        if f.filter is not None:
            raise BindError(f"FILTER clause on non-aggregate function {name}()", pos=f.pos)
        args = tuple(self.expr(a, scope, clause=clause, aggs=aggs) for a in f.args)
        if time_value_missing(name, len(args)):  # SQLite's clock: the pinned instant
            args = (*args, S.Const("now"))
        if name in FUNCTION_FORMS:
            lo, hi = FUNCTION_FORMS[name][0]
            if not lo <= len(args) <= hi:
                raise BindError(f"wrong number of arguments to function {name}()", pos=f.pos)
            if name == "IIF":
                return S.Case(((args[0], args[1]),), args[2])
            return S.Like(args[1], args[0], args[2] if len(args) == 3 else None,
                          name == "GLOB")
        spec = registered_function(name)
        if spec is not None:  # (else: unsupported when encoded, or SQLite's error)
            if not spec.arity_ok(len(args)):
                raise BindError(f"wrong number of arguments to function {name}()", pos=f.pos)
            name = spec.name  # an alias is its function: SUBSTRING is SUBSTR
        return S.Call(name, args)

    def window_call(self, f: A.Function, scope: _Scope, clause: str, aggs: _AggState | None
                    ) -> S.Expr:
        """``f(...) OVER (...)``: a placeholder for the window operator's column."""
        name = f.name.upper()
        wins = self._win
        if wins is None:
            raise BindError(f"misuse of window function {name}()", pos=f.pos)
        if f.distinct:
            raise BindError("DISTINCT is not supported for window functions", pos=f.pos)
        if f.filter is not None and name not in AGGREGATES:
            raise BindError("FILTER clause may only be used with aggregate window functions",
                            pos=f.pos)
        spec = _resolve_window(f.over, wins.named)
        self._win = None  # no window inside a window's arguments
        try:
            args = tuple(self.expr(a, scope, clause=clause, aggs=aggs) for a in f.args)
            if f.filter is not None:
                cond = self.expr(f.filter, scope, clause=clause, aggs=aggs)
                f, args = _filtered(f, args, cond)
            partition = tuple(self.expr(p, scope, clause=clause, aggs=aggs)
                              for p in spec.partition_by)
            order = tuple(self._window_order_key(o, scope, clause, aggs)
                          for o in spec.order_by)
        finally:
            self._win = wins
        if f.star and name != "COUNT":
            raise BindError(f"wrong number of arguments to function {name}()", pos=f.pos)
        frame = _frame(spec.frame, f.pos) if spec.frame else R.DEFAULT_FRAME
        wins.calls.append(R.WindowCall(name, args, partition, order, frame))
        return _WinSlot(len(wins.calls) - 1)

    def _window_order_key(self, o: A.OrderItem, scope: _Scope, clause: str,
                          aggs: _AggState | None) -> R.SortKey:
        e = o.expr
        collation = None
        if isinstance(e, A.Collate):
            collation = _collation(e)
            e = e.operand
        bound = self.expr(e, scope, clause=clause, aggs=aggs)
        return R.SortKey(bound, o.descending, _nulls_first(o),
                         collation or S.collation_name(bound))

    def name(self, n: A.Name, scope: _Scope, clause: str, aggs: _AggState | None = None
             ) -> S.Expr:
        parts = n.parts[-2:] if len(n.parts) == 3 else n.parts
        column = parts[-1].lower()
        table = parts[0].lower() if len(parts) == 2 else None
        depth = 0
        s: _Scope | None = scope
        while s is not None:
            hits = [
                i for i, c in enumerate(s.cols)
                if c.name.lower() == column and (
                    (table is None and not c.hidden) or (table is not None and c.table == table)
                )
            ]
            if not hits and column in ROWID_NAMES:
                hits = [i for i, c in enumerate(s.cols)
                        if c.rowid and (table is None or c.table == table)]
            if len(hits) > 1:
                raise BindError(f"ambiguous column name: {'.'.join(n.parts)}", pos=n.pos)
            if hits:
                c = s.cols[hits[0]]
                return S.ColumnRef(depth, hits[0], c.affinity, c.name, c.collation)
            here = clause if depth == 0 else s.clause
            if table is None and column in s.aliases and here in _ALIAS_CLAUSES:
                ast_e = s.aliases[column]
                if not (isinstance(ast_e, A.Name) and ast_e.parts[-1].lower() == column):
                    if here in ("WHERE", "GROUP BY", "ON") and _has_aggregate(ast_e):
                        raise BindError(f"misuse of aliased aggregate {parts[-1]}", pos=n.pos)
                    if depth == 0:
                        return self.expr(ast_e, scope, clause=clause, aggs=aggs)
                    return self._outer_alias(ast_e, s, depth, parts[-1], n.pos)
            s = s.parent
            depth += 1
        if n.double_quoted and len(n.parts) == 1:
            return S.Const(n.parts[0])  # SQLite's fallback: "x" is the string 'x'
        raise BindError(f"no such column: {'.'.join(n.parts)}", pos=n.pos)

    def _outer_alias(self, ast_e: A.Expr, s: _Scope, depth: int, name: str, pos
                     ) -> S.Expr:
        """An enclosing query's alias named in a subquery: its expression read in that
        query's FROM, its columns ``depth`` levels out (SQLite copies it in, the same)."""
        if _has_aggregate(ast_e) or _has_window(ast_e):
            raise Unsupported(f"alias {name} of an aggregate or window named in a subquery",
                              pos=pos)
        chain = s
        for _ in range(depth):  # empty levels: every name found in s is depth levels out
            chain = _Scope([], chain, ctes=s.ctes)
        return self.expr(ast_e, chain, clause=s.clause)

    def row_comparison(self, e: A.Binary, scope: _Scope, kw) -> S.Expr:
        """``(a, b) op (c, d)`` (or a row against a subquery of as many columns) as SQLite
        defines it (lang_expr.html#row_value_comparisons): pairs compared left to right
        with the scalar rules (affinity and collation per pair); ``=`` is the AND of the
        pairs, ``<>`` its negation, ``IS`` the AND of IS, ``<`` and the others
        lexicographic: ``a < c OR (a = c AND (b < d))``. In three-valued logic these are
        exactly SQLite's results, NULLs included.

        A subquery operand is its first row: each column becomes a scalar subquery of
        its own. Where the first row is SQLite's arbitrary choice, the columns are then
        chosen independently, which admits SQLite's row among others (sound; a
        difference through it is not confirmed on SQLite)."""
        op = e.op.upper()
        if op not in ("=", "!=", "<", "<=", ">", ">=", "IS", "IS NOT"):
            raise Unsupported(f"row value with operator {e.op}", pos=e.pos)
        left = self._row_items(e.left, scope, kw)
        right = self._row_items(e.right, scope, kw)
        if len(left) != len(right):
            raise BindError("row value misused", pos=e.pos)
        if op in ("IS", "IS NOT"):
            out = S.conjoin([S.Is(x, y) for x, y in zip(left, right, strict=True)])
            return S.Not(out) if op == "IS NOT" else out
        if op in ("=", "!="):
            out = S.conjoin([S.Compare("=", x, y) for x, y in zip(left, right, strict=True)])
            return S.Not(out) if op == "!=" else out
        strict = op[0]
        out: S.Expr = S.Compare(op, left[-1], right[-1])
        for x, y in zip(reversed(left[:-1]), reversed(right[:-1]), strict=True):
            out = S.Or(S.Compare(strict, x, y), S.And(S.Compare("=", x, y), out))
        return out

    def row_in_query(self, operand: A.Row, query: A.Query, scope: _Scope, kw) -> S.Expr:
        """``(a, b) IN (SELECT x, y ...)``: the subquery has as many columns as the row;
        the IN operator compares column by column (``S.InSubquery.rest``)."""
        xs = self._row_items(operand, scope, kw)
        q = self.subquery(query, scope, want_one_column=False)
        if len(q.columns) != len(xs):
            raise BindError(f"sub-select returns {len(q.columns)} columns - expected "
                            f"{len(xs)}", pos=query.pos)
        return S.InSubquery(xs[0], q, tuple(xs[1:]))

    def row_in_list(self, e: A.InList, scope: _Scope, kw) -> S.Expr:
        """``(a, b) [NOT] IN ((1, 2), (c, d))``, as SQLite's parser reads it: the list is
        ``VALUES (1, 2), (c, d)`` and the operator that subquery's IN
        (rowvalue.html, ``sqlite3ExprListToValues``); every item is a row of as many
        terms (a ``(SELECT ...)`` item is one term, as in SQLite). The list is bound as
        that VALUES relation and the result is IN's: TRUE if some item equals, NULL if
        none does but some pair compares NULL, FALSE otherwise (empty list: FALSE);
        see ``_row_in_subquery`` (spotit/encodings/subqueries.py) for SQLite's
        collation quirk in the NULL case.

        Per column, as for ``IN (SELECT ...)`` of a compound, SQLite reads the affinity
        and collation of the *last* item (``exprINAffinity``, ``sqlite3CodeRhsOfIN``):
        the comparison affinity of the row's column and the last item's (the scalar
        rule) is applied to the row's value and to every item's value, and the pair's
        collation is the row's (explicit first), else the last item's."""
        n = len(e.operand.items)
        xs = self._row_items(e.operand, scope, kw)
        inner = _Scope([], scope, ctes=scope.ctes)  # the items are a VALUES subquery's
        rows = []
        for item in e.items:
            if _has_aggregate(item):
                raise Unsupported("an aggregate in a row value IN list", pos=item.pos)
            m = len(item.items) if isinstance(item, A.Row) else 1
            if m != n:
                raise BindError(f"IN(...) element has {m} term{'s' if m != 1 else ''} - "
                                f"expected {n}", pos=item.pos)
            rows.append(self._row_items(item, inner, {"clause": kw.get("clause", "")}))
        if not rows:
            r: S.Expr = S.Const(0)
            return S.Not(r) if e.negated else r
        lhs, out = [], []
        for i, (x, y) in enumerate(zip(xs, rows[-1], strict=True)):
            target = _in_affinity(S.affinity_of(x), S.affinity_of(y))
            lhs.append(S.Call("+", (x,)) if target is NO_AFFINITY else x)
            out.append(R.OutColumn(f"column{i + 1}", target, S.collation_of(y)))
        values = R.Values(tuple(tuple(_stored(y, c.affinity) for y, c in
                                      zip(row, out, strict=True)) for row in rows), tuple(out))
        r = S.InSubquery(lhs[0], values, tuple(lhs[1:]))
        return S.Not(r) if e.negated else r

    def _row_items(self, e: A.Expr, scope: _Scope, kw) -> list[S.Expr]:
        if isinstance(e, A.Row):
            if any(isinstance(i, A.Row) and len(i.items) != 1 for i in e.items):
                raise BindError("row value misused", pos=e.pos)
            return [self.expr(i, scope, **kw) for i in e.items]
        if isinstance(e, A.Subquery):
            q = self.subquery(e.query, scope, want_one_column=False)
            cols = q.columns
            out = []
            for i, c in enumerate(cols):
                ref = S.ColumnRef(0, i, c.affinity, c.name, c.collation)
                col = R.Project(q, (ref,), (R.OutColumn(c.name, c.affinity, c.collation),))
                out.append(S.ScalarSubquery(col))
            return out
        return [self.expr(e, scope, **kw)]

    def subquery(self, q: A.Query, scope: _Scope, *, want_one_column: bool) -> R.Rel:
        rel = self.query(q, scope, scope.ctes)
        if want_one_column and len(rel.columns) != 1:
            raise BindError(f"sub-select returns {len(rel.columns)} columns - expected 1",
                            pos=q.pos)
        return rel


def _in_affinity(ax: Affinity, ay: Affinity) -> Affinity:
    """The affinity a row value IN list applies to both sides of a column: SQLite's
    ``sqlite3CompareAffinity`` of the row's column and the last item's, as the scalar
    comparison rule reads it (``conversions.comparison_affinity``): NUMERIC if either
    is numeric, TEXT against none, else no conversion."""
    if ax.is_numeric or ay.is_numeric:
        return Affinity.NUMERIC
    if {ax, ay} == {Affinity.TEXT, NO_AFFINITY}:
        return Affinity.TEXT
    return NO_AFFINITY


def _plus(x: S.Expr) -> S.Expr:
    """``+x``: x's value without its affinity and collation -- a literal has none."""
    return x if isinstance(x, S.Const) else S.Call("+", (x,))


def _stored(x: S.Expr, affinity: Affinity) -> S.Expr:
    """x with ``affinity`` applied, and none left for the comparison to add (unary
    ``+`` where nothing is applied)."""
    return S.Call("+", (x,)) if affinity is NO_AFFINITY else S.StoredAs(x, affinity)


# ---------------------------------------------------------------------- aggregation rebase


class _Rebase:
    """Rewrite post-GROUP BY expressions over the Aggregate operator's output row.

    Aggregate placeholders become references to aggregate columns, expressions
    equal to a GROUP BY key become references to that key, and any other
    reference to an input column becomes a BARE aggregate (SQLite's bare column).
    """

    def __init__(self, keys: tuple[S.Expr, ...], aggs: _AggState):
        self.keys = keys
        self.aggs = aggs

    def __call__(self, e: S.Expr) -> S.Expr:
        nk = len(self.keys)

        def fn(x: S.Expr, level: int) -> S.Expr | None:
            if isinstance(x, _AggSlot):
                call = self.aggs.calls[x.index]
                return S.ColumnRef(level, nk + x.index, NO_AFFINITY,
                                   collation=_aggregate_collation(call))
            if level == 0 and x in self.keys:
                i = self.keys.index(x)
                return S.ColumnRef(0, i, S.affinity_of(x), getattr(x, "name", ""),
                                   S.collation_of(x))
            if isinstance(x, S.ColumnRef) and x.depth == level:
                shifted = dataclasses.replace(x, depth=0)
                if shifted in self.keys:
                    i = self.keys.index(shifted)
                    return S.ColumnRef(level, i, x.affinity, x.name, x.collation)
                i = self.aggs.add(R.AggCall("BARE", shifted))
                return S.ColumnRef(level, nk + i, x.affinity, x.name, x.collation)
            return None

        return rewrite(e, fn)


# ---------------------------------------------------------------------- windows


@dataclass
class _WinState:
    """Window calls met while binding one SELECT's result list and ORDER BY, and the
    SELECT's named windows (``WINDOW w AS (...)``)."""

    named: dict[str, A.WindowSpec]
    calls: list[R.WindowCall] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class _WinSlot(S.Expr):
    """Placeholder for window call ``index`` until the Window operator is built."""

    index: int


class _WindowColumns:
    """Replace window placeholders by references to the Window operator's columns."""

    def __init__(self, width: int, calls: tuple[R.WindowCall, ...]):
        self.width, self.calls = width, calls

    def __call__(self, e: S.Expr) -> S.Expr:
        def fn(x: S.Expr, level: int) -> S.Expr | None:
            if isinstance(x, _WinSlot):
                return S.ColumnRef(level, self.width + x.index, NO_AFFINITY,
                                   collation=_window_collation(self.calls[x.index]))
            return None

        return rewrite(e, fn)


def rebase_window(rebase: _Rebase, c: R.WindowCall) -> R.WindowCall:
    """A window call of an aggregate query, over the Aggregate operator's output row."""
    return dataclasses.replace(
        c, args=tuple(rebase(a) for a in c.args),
        partition=tuple(rebase(p) for p in c.partition),
        order=tuple(dataclasses.replace(k, expr=rebase(k.expr)) for k in c.order))


def _window_collation(c: R.WindowCall) -> Collation | None:
    """What a window function's value brings to a comparison: as an aggregate's, only a
    COLLATE written inside its first argument."""
    if c.args and S.has_explicit_collation(c.args[0]):
        return S.collation_of(c.args[0])
    return None


def _resolve_window(spec: A.WindowSpec, named: dict[str, A.WindowSpec]) -> A.WindowSpec:
    """``OVER w`` / ``OVER (w ORDER BY ...)``: the named window, completed by the
    call's own clauses (SQLite: the call may add ORDER BY if w has none, and a frame)."""
    if spec.name is None:
        return spec
    base = named.get(spec.name.lower())
    if base is None:
        raise BindError(f"no such window: {spec.name}", pos=spec.pos)
    base = _resolve_window(base, named) if base.name is not None else base
    only_name = not (spec.partition_by or spec.order_by or spec.frame)
    if only_name:
        return base
    if spec.partition_by:
        raise BindError(f"cannot override PARTITION clause of window: {spec.name}",
                        pos=spec.pos)
    if spec.order_by and base.order_by:
        raise BindError(f"cannot override ORDER BY clause of window: {spec.name}",
                        pos=spec.pos)
    if base.frame:
        raise BindError(f"cannot override frame specification of window: {spec.name}",
                        pos=spec.pos)
    return A.WindowSpec(None, base.partition_by, spec.order_by or base.order_by, spec.frame,
                        pos=spec.pos)


_BOUND = r"(UNBOUNDED PRECEDING|UNBOUNDED FOLLOWING|CURRENT ROW|(.+?) (PRECEDING|FOLLOWING))"


def _frame(text: str, pos) -> R.Frame:
    """The frame the parser kept as text (``ROWS BETWEEN 1 PRECEDING AND CURRENT ROW``)."""
    import re

    m = re.fullmatch(rf"(ROWS|RANGE|GROUPS) (?:BETWEEN {_BOUND} AND {_BOUND}|{_BOUND})"
                     r"(?: EXCLUDE (NO OTHERS|CURRENT ROW|GROUP|TIES))?", text)
    if m is None:
        raise Unsupported(f"window frame {text}", pos=pos)
    g = m.groups()

    def bound(kind: str | None, offset: str | None, direction: str | None) -> R.FrameBound:
        if offset is None:
            return R.FrameBound(kind or "")
        try:
            value = constant_value(bind_row_expression_free(offset))
        except SpotItError:
            value = _NOT_CONSTANT
        if value is _NOT_CONSTANT or not isinstance(value, int | float) or value < 0:
            raise Unsupported(f"window frame offset {offset}", pos=pos)
        return R.FrameBound(direction or "", value)

    if g[1] is not None:  # BETWEEN start AND end
        start, end = bound(*g[1:4]), bound(*g[4:7])
    else:  # a start only: the end is the current row
        start, end = bound(*g[7:10]), R.FrameBound("CURRENT ROW")
    return R.Frame(g[0], start, end, g[10] or "NO OTHERS", g[10] is not None)


def _filtered(f: A.Function, args: tuple[S.Expr, ...], cond: S.Expr
              ) -> tuple[A.Function, tuple[S.Expr, ...]]:
    """``agg(x) FILTER (WHERE c)`` as ``agg(CASE WHEN c THEN x END)``: an aggregate
    skips NULLs, so it sees x exactly on the rows where c is true (``COUNT(*)``
    counts ``CASE WHEN c THEN 1 END``). A value whose collation is not BINARY keeps
    it only through a column reference, so MIN/MAX/DISTINCT of one is refused."""
    if f.star or not args:
        return dataclasses.replace(f, star=False, filter=None), (
            S.Case(((cond, S.Const(1)),), S.Const(None)),)
    c = S.collation_of(args[0])
    if c is not None and c.name != BINARY and (
            f.distinct or f.name.upper() in ("MIN", "MAX")):
        raise Unsupported(f"{f.name.upper()}() FILTER of a {c.name} value", pos=f.pos)
    first = S.Case(((cond, args[0]),), S.Const(None))
    return dataclasses.replace(f, filter=None), (first, *args[1:])


def bind_row_expression_free(text: str) -> S.Expr:
    """A closed expression (a frame offset), bound without any table."""
    return _Binder(Schema(())).expr(parse_expression(text), _Scope([], None))


# ---------------------------------------------------------------------- helpers


def _distinct_with_order_terms(proj: R.Project, n: int) -> R.Rel:
    """``SELECT DISTINCT <n columns> ... ORDER BY <terms outside the list>``: SQLite
    deduplicates on the n result columns only (an ephemeral index on them) and hands
    the sorter the ORDER BY terms of the *first row it meets* of each class, in its
    scan order (``select.c``; EXPLAIN shows ``Found`` on the index, then
    ``SorterInsert``). Which row that is depends on the plan: an arbitrary choice, as
    for a bare column next to an aggregate. So it is one: GROUP BY the result columns,
    each extra term a BARE aggregate (some row of the class), which is exact whenever
    the class's rows agree on the term."""
    cols = proj.columns
    keys = tuple(S.ColumnRef(0, i, c.affinity, c.name, c.collation)
                 for i, c in enumerate(cols[:n]))
    bare = tuple(R.AggCall("BARE", S.ColumnRef(0, i, c.affinity, c.name, c.collation))
                 for i, c in enumerate(cols) if i >= n)
    return R.Aggregate(proj, keys, bare, cols)


_NOT_CONSTANT = object()


def constant_value(e: S.Expr):
    """The value of a closed constant expression, computed by SQLite itself."""
    from spotit.ir.render import render_expr

    try:
        sql = render_expr(e)
    except (KeyError, ValueError, NotImplementedError):
        return _NOT_CONSTANT
    if sql is None:
        return _NOT_CONSTANT
    try:
        return sqlite3.connect(":memory:").execute(f"SELECT {sql}").fetchone()[0]
    except sqlite3.Error:
        return _NOT_CONSTANT


def _ast_children(x: object) -> list[A.Node]:
    """The AST nodes directly under ``x``: fields, and nodes in tuples (one level of
    nesting deep, as in CASE's (when, then) pairs)."""
    out: list[A.Node] = []
    if not dataclasses.is_dataclass(x):
        return out
    for f in dataclasses.fields(x):
        v = getattr(x, f.name)
        if isinstance(v, A.Node):
            out.append(v)
        elif isinstance(v, tuple):
            for item in v:
                if isinstance(item, A.Node):
                    out.append(item)
                elif isinstance(item, tuple):
                    out.extend(i for i in item if isinstance(i, A.Node))
    return out


def _has_aggregate(e: A.Expr | None) -> bool:
    """Whether ``e`` calls an aggregate at this query level (not inside subqueries)."""
    return _calls_at_this_level(e, _is_aggregate_call)


def _has_window(e: A.Expr | None) -> bool:
    """Whether ``e`` calls a window function at this query level."""
    return _calls_at_this_level(e, lambda f: f.over is not None)


def _calls_at_this_level(e: A.Expr | None, which) -> bool:
    """Whether ``e`` holds a call ``which`` accepts outside its subqueries (the operand of
    ``x IN (SELECT ...)`` is at this level)."""
    if e is None:
        return False
    stack: list = [e]
    while stack:
        x = stack.pop()
        if isinstance(x, A.Function) and which(x):
            return True
        if isinstance(x, A.Exists | A.Subquery | A.InQuery):
            if isinstance(x, A.InQuery):
                stack.append(x.operand)
            continue
        stack.extend(_ast_children(x))
    return False


def _is_aggregate_call(f: A.Function) -> bool:
    """COUNT/SUM/... without OVER; MIN and MAX with several arguments are scalar."""
    name = f.name.upper()
    return f.over is None and name in AGGREGATES and not (name in ("MIN", "MAX")
                                                          and len(f.args) > 1)


def _contains_slot(e: S.Expr) -> bool:
    from spotit.ir.walk import iter_exprs

    return any(isinstance(x, _AggSlot) for x, _ in iter_exprs(e))


def _position(e: A.Expr, n: int, clause: str) -> int | None:
    """``ORDER BY 2`` / ``GROUP BY 1``: a constant integer names a result column."""
    if isinstance(e, A.Literal) and isinstance(e.value, int) and not isinstance(e.value, bool):
        if not 1 <= e.value <= n:
            raise BindError(
                f"{_ordinal(e.value)} {clause} term out of range - should be between 1 and {n}",
                pos=e.pos,
            )
        return e.value - 1
    return None


def _ordinal(i: int) -> str:
    return f"{i}{'th' if 10 <= i % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(i % 10, 'th')}"



def _expr_at(index: int, select_exprs, extra) -> S.Expr:
    return select_exprs[index] if index < len(select_exprs) else extra[index - len(select_exprs)]


def _affinity_at(index: int, select_exprs, extra) -> Affinity:
    return S.affinity_of(_expr_at(index, select_exprs, extra))


def _collation(e: A.Collate) -> str:
    name = e.collation.upper()
    if name not in MODELLED_COLLATIONS:
        raise Unsupported(f"collation {e.collation}", pos=e.pos)
    return name


def _aggregate_collation(call: R.AggCall) -> Collation | None:
    """What an aggregate's result brings to a comparison: a bare column is its
    column; an aggregate function only a COLLATE written inside its argument."""
    if call.arg is None:
        return None
    if call.func == "BARE" or S.has_explicit_collation(call.arg):
        return S.collation_of(call.arg)
    return None


def _is_constant_ast(e: A.Expr) -> bool:
    """SQLite's parse-time notion of a constant (``sqlite3ExprIsConstant`` before name
    resolution): no names other than TRUE/FALSE, no function calls, no subqueries."""
    stack: list = [e]
    while stack:
        x = stack.pop()
        if isinstance(x, A.Name):
            if not (len(x.parts) == 1 and x.parts[0].lower() in ("true", "false")
                    and not x.double_quoted):
                return False
        elif isinstance(x, A.Function | A.Exists | A.Subquery | A.InQuery | A.InTable):
            return False
        stack.extend(_ast_children(x))
    return True


def _nulls_first(o: A.OrderItem) -> bool | None:
    if o.nulls is None:
        return None
    return o.nulls.upper() == "FIRST"


def _find_visible(cols: list[_Col], name: str) -> int | None:
    low = name.lower()
    for i, c in enumerate(cols):
        if c.name.lower() == low and not c.hidden:
            return i
    return None


def _table_refs(node) -> list[A.TableRef]:
    """Every table named in a FROM inside ``node`` (subqueries included)."""
    found: list[A.TableRef] = []

    def walk(x) -> None:
        if isinstance(x, A.TableRef):
            found.append(x)
        if isinstance(x, A.Node):
            for f in dataclasses.fields(x):
                if f.name != "pos":
                    walk(getattr(x, f.name, None))
        elif isinstance(x, tuple | list):
            for y in x:
                walk(y)

    walk(node)
    return found


def _names_table(node, name: str) -> bool:
    low = name.lower()
    return any(t.schema is None and t.name.lower() == low for t in _table_refs(node))


def _once_in_from(sel: A.Select, name: str) -> bool:
    """The SELECT names ``name`` exactly once, in its own FROM (not in a subquery)."""
    low = name.lower()

    def direct(f) -> list[A.TableRef]:
        if isinstance(f, A.TableRef):
            return [f]
        if isinstance(f, A.Join):
            return direct(f.left) + direct(f.right)
        return []

    mine = [t for t in direct(sel.from_) if t.schema is None and t.name.lower() == low]
    every = [t for t in _table_refs(sel) if t.schema is None and t.name.lower() == low]
    return len(mine) == 1 and len(every) == 1


def _rename(rel: R.Rel, names: tuple[str, ...]) -> R.Rel:
    read = _table_affinities(rel)
    refs = tuple(S.ColumnRef(0, i, a, n, _as_column(c.collation)) for i, (c, a, n) in
                 enumerate(zip(rel.columns, read, names, strict=True)))
    out = tuple(R.OutColumn(n, a, _as_column(c.collation))
                for c, a, n in zip(rel.columns, read, names, strict=True))
    return R.Project(rel, refs, out)


def _display(e: A.Expr) -> str:
    try:
        from spotit.frontend.render import render

        return render(e)
    except Exception:  # the renderer is only used for a display name
        return type(e).__name__.lower()


def _full_join(left: R.Rel, right: R.Rel, cond: S.Expr | None) -> R.Rel:
    """``left FULL JOIN right ON cond`` as SQLite returns it: the LEFT JOIN's rows, then
    each right row no left row matches, with NULLs on the left side -- the unmatched
    right rows are those where ``NOT EXISTS (SELECT 1 FROM left WHERE cond)``."""
    nl = len(left.columns)
    on = cond if cond is not None else S.Const(1)

    def deeper(e: S.Expr, level: int) -> S.Expr | None:
        # a reference out of ``left``, which now sits one subquery level deeper
        if isinstance(e, S.ColumnRef) and e.depth > level:
            return dataclasses.replace(e, depth=e.depth + 1)
        return None

    def from_inside(e: S.Expr, level: int) -> S.Expr | None:
        # ``on`` read inside the subquery over ``left``: the right row is one level out
        if not isinstance(e, S.ColumnRef) or e.depth < level:
            return None
        if e.depth > level:
            return dataclasses.replace(e, depth=e.depth + 1)
        if e.index >= nl:
            return dataclasses.replace(e, depth=level + 1, index=e.index - nl)
        return e

    matched = R.Join("LEFT", left, right, cond)
    unmatched = R.Filter(right, S.Not(S.Exists(
        R.Filter(rewrite(left, deeper), rewrite(on, from_inside)))))
    padded = R.Project(unmatched, tuple(
        [S.Const(None)] * nl + [S.ColumnRef(0, i, c.affinity, c.name, c.collation)
                               for i, c in enumerate(right.columns)]), matched.columns)
    return R.SetOp("UNION", True, matched, padded)


_ALIAS_CLAUSES = ("WHERE", "GROUP BY", "HAVING", "ORDER BY", "ON")


def _aliases(sel: A.Select) -> dict[str, A.Expr]:
    out: dict[str, A.Expr] = {}
    for rc in sel.columns:
        if isinstance(rc, A.ResultColumn) and rc.alias is not None:
            out.setdefault(rc.alias.lower(), rc.expr)
    return out


def _chain_operands(e: A.Binary, op: str) -> list[A.Expr]:
    """The operands of a chain ``a OP b OP c ...`` left to right, found without recursion:
    the parser builds it left-deep, and the IR rebuilds it balanced (``S.conjoin``)."""
    out: list[A.Expr] = []
    todo: list[A.Expr] = [e]
    while todo:
        x = todo.pop()
        if isinstance(x, A.Binary) and x.op.upper() == op:
            todo.extend((x.right, x.left))
        else:
            out.append(x)
    return out

