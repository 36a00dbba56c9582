"""Render a bound plan back to SQLite SQL that computes the same rows.

The fuzz of the canonical-form rules (``spotit.proofs.rules``) runs a rewritten plan
in SQLite, so the plan must become SQL without changing its meaning. Every operator
becomes one SELECT whose columns are named ``c0 .. cN``; an operator's input is a
derived table with a fresh alias ``tK``, so ``ColumnRef(depth, i)`` is ``tK.ci`` of
the input ``depth`` subquery levels out (SQLite resolves correlated names through
derived tables).

A ``ColumnRef`` records the affinity and collation it brings to a comparison; a
derived-table column brings those of its expression, as a column (BINARY when the
expression has none, never explicit). Where the two differ, the reference is
re-wrapped: ``x COLLATE C`` for an explicit collation, ``(SELECT x)`` to drop the
collation and keep the affinity, ``+x`` to drop the affinity. What cannot be
rendered faithfully raises ``Unsupported``; nothing is approximated.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import count

from spotit.errors import Unsupported
from spotit.ir import relational as R
from spotit.ir import scalar as S
from spotit.ir.render import INFIX_CALLS, call_sql, operator_sql, sql_literal
from spotit.ir.types import NO_AFFINITY, Affinity, Collation
from spotit.ir.walk import without_names
from spotit.schema import Schema

# what an expression brings to a comparison: its affinity and collation (None: none)
Attrs = tuple[Affinity, Collation | None]


@dataclass(frozen=True)
class _Col:
    """A column an expression may read: its spelling and what it brings as a column."""

    sql: str
    affinity: Affinity
    collation: Collation


@dataclass(frozen=True)
class _Select:
    """One operator as SQL: a SELECT with columns c0..cN and what each item brings."""

    sql: str
    attrs: tuple[Attrs, ...]


def plan_sql(plan: R.Rel, schema: Schema | None = None) -> str:
    """SQLite SQL computing the rows of ``plan`` (columns ``c0 .. cN``).

    With ``schema``, a scan reads the table's columns by the schema's names (a plan
    may have lost its own: the "column names" rule blanks them), and a generated
    column's value (``StoredAs``, which SQL cannot compute) is read from its table."""
    if not plan.columns:
        raise Unsupported("a plan without columns")
    return _Renderer(schema).rel(plan, (), expression=False).sql


def column_attrs(attrs: Attrs) -> Collation:
    """The collation a derived-table column of an expression brings."""
    coll = attrs[1]
    return Collation(coll.name) if coll is not None else Collation()


class _Renderer:
    def __init__(self, schema: Schema | None):
        self.schema = schema
        self.generated: dict[str, R.Rel] = {}
        if schema is not None:
            from spotit.frontend.tables import table_rules

            self.generated = {t.name: without_names(table_rules(schema, t).relation)
                              for t in schema.tables if t.generated}
        self._ids = count(1)

    def names(self, scan: R.Scan) -> list[str]:
        """The stored columns of the scanned table, by name."""
        table = self.schema.table(scan.table) if self.schema is not None else None
        if table is None:
            names = [c.name for c in scan.out]
        else:
            names = [c.name for c in table.columns]
            names += [table.hidden_rowid] if table.hidden_rowid is not None else []
        if len(names) != len(scan.out) or not all(names):
            raise Unsupported(f"the columns of table {scan.table}")
        return names

    # ------------------------------------------------------------------ operators

    def derived(self, r: R.Rel, outer: tuple[list[_Col], ...]) -> tuple[str, list[_Col]]:
        """``(<r>) AS tK`` and the columns it offers."""
        sel = self.rel(r, outer, expression=False)
        alias = f"t{next(self._ids)}"
        cols = [_Col(f"{alias}.c{i}", a[0], column_attrs(a)) for i, a in enumerate(sel.attrs)]
        return f"({sel.sql}) AS {alias}", cols

    def rel(self, r: R.Rel, outer: tuple[list[_Col], ...], expression: bool) -> _Select:
        """``r`` as one SELECT. With ``expression`` (a compound member, the query of a
        subquery expression), items bring what ``r.columns`` records."""
        sel = self._rel(r, outer)
        if not expression or len(sel.attrs) != len(r.columns):
            return sel
        want = tuple((c.affinity, c.collation) for c in r.columns)
        if sel.attrs == want:
            return sel
        alias = f"t{next(self._ids)}"
        items = [_retarget(_Col(f"{alias}.c{i}", a[0], column_attrs(a)), *w)
                 for i, (a, w) in enumerate(zip(sel.attrs, want, strict=True))]
        return _Select(f"SELECT {_items(items)} FROM ({sel.sql}) AS {alias}", want)

    def _rel(self, r: R.Rel, outer: tuple[list[_Col], ...]) -> _Select:
        if isinstance(r, R.Scan):
            return self.scan(r)
        if isinstance(r, R.Values):
            return self.values(r, outer)
        if isinstance(r, R.Project):
            return self.project(r, outer)
        if isinstance(r, R.Filter):
            src, cols = self.derived(r.input, outer)
            where = self.expr(r.predicate, (cols, *outer))
            return _pass(cols, f"FROM {src} WHERE {where}")
        if isinstance(r, R.Distinct):
            if isinstance(r.input, R.Project):
                inner = self.project(r.input, outer)
                return _Select("SELECT DISTINCT " + inner.sql[len("SELECT "):], inner.attrs)
            src, cols = self.derived(r.input, outer)
            sel = _pass(cols, f"FROM {src}")
            return _Select("SELECT DISTINCT " + sel.sql[len("SELECT "):], sel.attrs)
        if isinstance(r, R.Join):
            return self.join(r, outer)
        if isinstance(r, R.Aggregate):
            return self.aggregate(r, outer)
        if isinstance(r, R.SetOp):
            return self.setop(r, outer)
        if isinstance(r, R.Sort):
            return self.sort(r, outer)
        if isinstance(r, R.Window):
            return self.window(r, outer)
        raise Unsupported(f"rendering {type(r).__name__}")

    def scan(self, r: R.Scan) -> _Select:
        items = [f"{_q(n)} AS c{i}" for i, n in enumerate(self.names(r))]
        return _Select(f"SELECT {', '.join(items)} FROM {_q(r.table)}",
                       tuple((c.affinity, c.collation) for c in r.out))

    def values(self, r: R.Values, outer) -> _Select:
        if not r.out:
            return _Select("SELECT NULL AS c0", ())
        selects = []
        for row in r.rows:
            selects.append("SELECT " + ", ".join(
                f"{self.expr(e, ([], *outer))} AS c{i}" for i, e in enumerate(row)))
        return _Select(" UNION ALL ".join(selects), tuple(_attrs(e) for e in r.rows[0]))

    def project(self, r: R.Project, outer) -> _Select:
        if not r.exprs:
            raise Unsupported("a projection without columns")
        if isinstance(r.input, R.Scan) and r.input.table in self.generated:
            src, cols = self._table(r.input)
        else:
            src, cols = self.derived(r.input, outer)
        scope = (cols, *outer)
        items, attrs = [], []
        for e in r.exprs:
            stored = self._generated(e, r.input, cols)
            items.append(stored[0] if stored else self.expr(e, scope))
            attrs.append(stored[1] if stored else _attrs(e))
        return _Select(f"SELECT {_items(items)} FROM {src}", tuple(attrs))

    def _table(self, scan: R.Scan) -> tuple[str, list[_Col]]:
        """A base table read directly (its generated columns are readable by name)."""
        alias = f"t{next(self._ids)}"
        return f"{_q(scan.table)} AS {alias}", [
            _Col(f"{alias}.{_q(n)}", c.affinity, c.collation or Collation())
            for n, c in zip(self.names(scan), scan.out, strict=True)]

    def _generated(self, e: S.Expr, source: R.Rel, cols: list[_Col]
                   ) -> tuple[str, Attrs] | None:
        """A generated column's value, read from the table (SQL cannot compute it)."""
        if not isinstance(e, S.StoredAs):
            return None
        rel = self.generated.get(source.table) if isinstance(source, R.Scan) else None
        e = without_names(e)
        if not (isinstance(rel, R.Project) and rel.input == without_names(source)
                and e in rel.exprs):
            raise Unsupported("a generated column's value outside its table")
        alias = cols[0].sql.split(".")[0]
        i = rel.exprs.index(e)
        out = rel.out[i]
        return f"{alias}.{_q(self._declared(source.table)[i])}", (out.affinity, out.collation)

    def _declared(self, table: str) -> list[str]:
        """Every column of ``table`` in declaration order (generated ones included)."""
        from spotit.frontend.tables import table_rules

        assert self.schema is not None
        t = self.schema.require_table(table)
        return [c.name for c in table_rules(self.schema, t).relation.columns]

    def join(self, r: R.Join, outer) -> _Select:
        if r.kind not in ("INNER", "LEFT"):
            raise Unsupported(f"{r.kind} JOIN")
        lsrc, lcols = self.derived(r.left, outer)
        rsrc, rcols = self.derived(r.right, outer)
        cols = lcols + rcols
        on = self.expr(r.condition, (cols, *outer)) if r.condition is not None else "1"
        sel = _pass(cols, f"FROM {lsrc} {'LEFT JOIN' if r.kind == 'LEFT' else 'JOIN'} "
                          f"{rsrc} ON {on}")
        return sel

    def aggregate(self, r: R.Aggregate, outer) -> _Select:
        src, cols = self.derived(r.input, outer)
        scope = (cols, *outer)
        items = [self.expr(k, scope) for k in r.keys]
        items += [self.agg(c, scope) for c in r.aggs]
        if not items:
            raise Unsupported("an aggregate without columns")
        group = (" GROUP BY " + ", ".join(str(i + 1) for i in range(len(r.keys)))
                 if r.keys else "")
        attrs = tuple(_attrs(k) for k in r.keys) + tuple(_agg_attrs(c) for c in r.aggs)
        return _Select(f"SELECT {_items(items)} FROM {src}{group}", attrs)

    def agg(self, c: R.AggCall, scope) -> str:
        if c.func == "BARE":
            assert c.arg is not None
            return self.expr(c.arg, scope)
        if c.func not in _AGGREGATES:
            raise Unsupported(f"aggregate {c.func}")
        if c.arg is None:
            return f"{c.func}(*)"
        arg = self.expr(c.arg, scope)
        distinct = "DISTINCT " if c.distinct else ""
        if c.separator is not None:
            if c.distinct:
                raise Unsupported("GROUP_CONCAT(DISTINCT x, separator)")
            return f"{c.func}({arg}, {self.expr(c.separator, scope)})"
        return f"{c.func}({distinct}{arg})"

    def setop(self, r: R.SetOp, outer) -> _Select:
        op = {"UNION": "UNION", "INTERSECT": "INTERSECT", "EXCEPT": "EXCEPT"}.get(r.op)
        if op is None or (r.all and op != "UNION"):
            raise Unsupported(f"set operation {r.op}")
        members = [self._member(m, outer) for m in R.compound_leaves(r)]
        ops = []
        node = r
        while isinstance(node, R.SetOp):
            ops.append(f"{node.op}{' ALL' if node.all else ''}")
            node = node.left
        sql = members[0].sql
        for o, m in zip(reversed(ops), members[1:], strict=True):
            sql += f" {o} {m.sql}"
        return _Select(sql, members[0].attrs)

    def _member(self, r: R.Rel, outer) -> _Select:
        """A compound's SELECT; one with ORDER BY/LIMIT or a compound of its own goes one
        level down, as a derived table, its items bringing what ``r.columns`` records."""
        if not (isinstance(r, R.Sort | R.SetOp) or (isinstance(r, R.Values)
                                                     and len(r.rows) > 1)):
            return self.rel(r, outer, expression=True)
        sel = self._rel(r, outer)
        alias = f"t{next(self._ids)}"
        want = tuple((c.affinity, c.collation) for c in r.columns)
        items = [_retarget(_Col(f"{alias}.c{i}", a[0], column_attrs(a)), *w)
                 for i, (a, w) in enumerate(zip(sel.attrs, want, strict=True))]
        return _Select(f"SELECT {_items(items)} FROM ({sel.sql}) AS {alias}", want)

    def sort(self, r: R.Sort, outer) -> _Select:
        src, cols = self.derived(r.input, outer)
        scope = (cols, *outer)
        # a constant orders nothing (and an integer one would name a column)
        keys = self.sort_keys([k for k in r.keys if not isinstance(k.expr, S.Const)], scope)
        tail = f" ORDER BY {keys}" if keys else ""
        if r.limit is not None or r.offset:
            limit = r.limit if r.limit is not None else -1
            tail += f" LIMIT {limit} OFFSET {r.offset}"
        return _pass(cols, f"FROM {src}{tail}")

    def window(self, r: R.Window, outer) -> _Select:
        src, cols = self.derived(r.input, outer)
        scope = (cols, *outer)
        items = [c.sql for c in cols] + [self.window_call(c, scope) for c in r.calls]
        calls = r.out[len(cols):]
        if any(c.affinity is not NO_AFFINITY or (c.collation is not None
                                                 and not c.collation.explicit) for c in calls):
            raise Unsupported("a window column's recorded affinity or collation")
        attrs = tuple((c.affinity, c.collation) for c in cols) + tuple(
            (c.affinity, c.collation) for c in calls)
        return _Select(f"SELECT {_items(items)} FROM {src}", attrs)

    def window_call(self, c: R.WindowCall, scope) -> str:
        args = ", ".join(self.expr(a, scope) for a in c.args)
        if c.func == "COUNT" and not c.args:
            args = "*"
        over = []
        if c.partition:
            over.append("PARTITION BY " + ", ".join(self.expr(p, scope) for p in c.partition))
        if c.order:
            over.append("ORDER BY " + self.sort_keys(list(c.order), scope))
        f = c.frame
        exclude = f" EXCLUDE {f.exclude}" if f.exclude_written or f.exclude != "NO OTHERS" \
            else ""
        over.append(f"{f.unit} BETWEEN {_bound(f.start)} AND {_bound(f.end)}{exclude}")
        return f"{c.func}({args}) OVER ({' '.join(over)})"

    def sort_keys(self, keys: list[R.SortKey], scope) -> str:
        out = []
        for k in keys:
            # the key's collation is its own: a column reference brings nothing to it
            e = k.expr
            ref = (scope[e.depth][e.index].sql if isinstance(e, S.ColumnRef)
                   and e.depth < len(scope) and e.index < len(scope[e.depth]) else None)
            key = f"({ref or self.expr(e, scope)}) COLLATE {k.collation}"
            key += " DESC" if k.descending else ""
            if k.nulls_first is not None:
                key += " NULLS FIRST" if k.nulls_first else " NULLS LAST"
            out.append(key)
        return ", ".join(out)

    # ------------------------------------------------------------------ expressions

    def expr(self, e: S.Expr, scope: tuple[list[_Col], ...]) -> str:
        r = lambda x: self.expr(x, scope)  # noqa: E731
        if isinstance(e, S.ColumnRef):
            if e.depth >= len(scope) or e.index >= len(scope[e.depth]):
                raise Unsupported(f"a column reference out of its scope ({e})")
            return _retarget(scope[e.depth][e.index], e.affinity, e.collation)
        if isinstance(e, S.Const):
            return sql_literal(e.value)
        if (text := operator_sql(e, r)) is not None:
            return text
        if isinstance(e, S.Collate):
            return f"({r(e.operand)} COLLATE {_q(e.collation)})"
        if isinstance(e, S.Call):
            return self.call(e, scope)
        if isinstance(e, S.InSubquery):
            lhs = ", ".join(r(x) for x in (e.operand, *e.rest))
            lhs = f"({lhs})" if e.rest else lhs
            return f"({lhs} IN ({self.subquery(e.query, scope)}))"
        if isinstance(e, S.Exists):
            return f"(EXISTS ({self.subquery(e.query, scope)}))"
        if isinstance(e, S.ScalarSubquery):
            return f"({self.subquery(e.query, scope)})"
        raise Unsupported(f"rendering {type(e).__name__}")

    def call(self, e: S.Call, scope) -> str:
        if e.name == "+" or e.name in INFIX_CALLS:
            return call_sql(e.name, [self.expr(a, scope) for a in e.args])
        if e.name in _KEYWORDS:
            if e.args:
                raise Unsupported(f"{e.name} with arguments")
            return e.name
        if not e.name.replace("_", "").isalnum():
            raise Unsupported(f"function {e.name}")
        return f"{e.name}({', '.join(self.expr(a, scope) for a in e.args)})"

    def subquery(self, q: R.Rel, scope) -> str:
        return self.rel(q, scope, expression=True).sql


_AGGREGATES = frozenset({"COUNT", "SUM", "TOTAL", "AVG", "MIN", "MAX", "GROUP_CONCAT"})
_KEYWORDS = frozenset({"CURRENT_DATE", "CURRENT_TIME", "CURRENT_TIMESTAMP"})


def _retarget(col: _Col, affinity: Affinity, collation: Collation | None) -> str:
    """``col`` spelled so that it brings ``affinity`` and ``collation``."""
    have_aff, have_coll = col.affinity, col.collation
    s = col.sql
    if affinity != have_aff:
        if affinity is not NO_AFFINITY:
            raise Unsupported(f"a reference recording affinity {affinity.value} to a column "
                              f"of affinity {have_aff.value}")
        s = f"(+ {s})"  # no affinity, the same collation
    if collation is None:
        return f"(SELECT {s})"  # a subquery's value brings no collation, keeps affinity
    if collation.explicit:
        return f"({s} COLLATE {_q(collation.name)})"
    if have_coll.name != collation.name:
        raise Unsupported(f"a reference recording collation {collation.name} to a column "
                          f"of collation {have_coll.name}")
    return s


def _pass(cols: list[_Col], tail: str) -> _Select:
    """``SELECT`` every column of the FROM clause under its position's name."""
    if not cols:
        return _Select(f"SELECT NULL AS c0 {tail}", ())
    return _Select(f"SELECT {_items([c.sql for c in cols])} {tail}",
                   tuple((c.affinity, c.collation) for c in cols))


def _items(exprs: list[str]) -> str:
    return ", ".join(f"{x} AS c{i}" for i, x in enumerate(exprs))


def _attrs(e: S.Expr) -> Attrs:
    return S.affinity_of(e), S.collation_of(e)


def _agg_attrs(c: R.AggCall) -> Attrs:
    if c.func == "BARE":
        assert c.arg is not None
        return _attrs(c.arg)
    if c.arg is not None and S.has_explicit_collation(c.arg):
        return NO_AFFINITY, S.collation_of(c.arg)
    return NO_AFFINITY, None


def _bound(b: R.FrameBound) -> str:
    if b.kind in ("PRECEDING", "FOLLOWING"):
        return f"{sql_literal(b.offset)} {b.kind}"
    return b.kind


def _q(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'
