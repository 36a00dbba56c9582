"""The canonical-form rules, checked end to end against SQLite.

For a generated or mutated query and a semantics (set, bag, list), the rules of
``spotit.canonical`` rewrite the bound plan; the rewritten plan is rendered back to
SQL (``spotit.ir.to_sql``) and run next to the original query on random small
databases. The rows must agree as the semantics compares them: as sets, as bags,
and for ``list`` also as bags -- row order is not checked (SQLite does not keep a
derived table's order, so the rendering cannot carry it).

Queries whose result SQLite leaves to its plan (``spotit.ir.determinism``) are
skipped, and so are plans the renderer refuses. The original plan is rendered and
run too: a difference there is the renderer's (or the binder's), not a rule's, and
the detail says so.
"""

from __future__ import annotations

import random
import sqlite3
import zlib
from collections import Counter
from dataclasses import dataclass, field, replace

import sqlglot
from hypothesis import strategies as st
from sqlglot import exp

from spotit.errors import SpotItError, Unsupported
from spotit.frontend.binder import bind
from spotit.frontend.parser import parse
from spotit.ir.determinism import nondeterminism
from spotit.ir.to_sql import plan_sql
from spotit.probe import DatabaseSampler, literal_pool
from spotit.proofs.crashes import CRASH, crash_proof
from spotit.proofs.queries import FUZZ_DDL, query_pairs
from spotit.schema import Schema, schema_from_ddl
from spotit.validate import Rows, insert_rows

SEMANTICS = ("set", "bag", "list")
DATABASES = 30  # random databases per query
MAX_ROWS = 3


@dataclass(frozen=True)
class RuleOutcome:
    """``kind``: ok | divergence | crash | skipped; ``checked`` maps each semantics
    whose canonical form was compared with SQLite to the rules that fired for it."""

    kind: str
    checked: dict[str, tuple[str, ...]] = field(default_factory=dict)
    detail: str = ""
    semantics: str = ""
    rules: tuple[str, ...] = ()
    canonical_sql: str = ""
    database: dict | None = None
    original_rows: list | None = None
    canonical_rows: list | None = None
    skipped: dict[str, str] = field(default_factory=dict)  # semantics -> why not checked
    data: str = "declared"  # the data level the rules ran at (sqlite: no foreign key)


def rule_queries() -> st.SearchStrategy[tuple[str, str]]:
    """(schema DDL, query): a seed query or a mutant of it (``query_pairs``), maybe
    reshaped the way the rules read queries (``reshaped``)."""
    return st.tuples(query_pairs(), st.booleans(), st.sampled_from(RESHAPES)).map(
        lambda t: (t[0][0], reshaped(t[0][2] if t[1] else t[0][1], t[2])))


# what the seeds rarely have and the rules look for: ORDER BY without LIMIT (dropped
# under set and bag), a derived table that re-projects, an ORDER BY over one, a fold of
# a fold (UPPER(LOWER(x))), aggregates that become the same (COUNT(1), COUNT(*)), and
# a join to the referenced dept row that reads nothing of it (emp.dept_id -> dept.id),
# or only its key, which the join makes equal to emp.dept_id, or only to filter on it
# or count it; COUNT of one column without GROUP BY, a GROUP BY of what is selected;
# a condition of the WHERE computed again in the select list
RESHAPES = ("as is", "as is", "unlimited", "derived", "derived, ordered", "unlimited, derived",
            "case folded", "counted", "parent checked", "parent key read", "parent filtered",
            "first column counted", "parent key counted", "grouped by the first column",
            "condition selected")


def reshaped(sql: str, how: str) -> str:
    if "unlimited" in how:
        tree = sqlglot.parse_one(sql, dialect="sqlite")
        tree.set("limit", None)
        tree.set("offset", None)
        sql = tree.sql(dialect="sqlite")
    if "derived" in how:
        sql = f"SELECT * FROM ({sql}) AS w" + (" ORDER BY 1" if "ordered" in how else "")
    if how == "counted":
        sql = f"SELECT COUNT(*), COUNT(1) FROM ({sql}) AS w"
    if how in ("first column counted", "grouped by the first column"):
        sql = _over_first_column(sql, how)
    if how == "condition selected":
        sql = _condition_selected(sql)
    if how in ("parent checked", "parent key read", "parent filtered", "parent key counted"):
        tree = sqlglot.parse_one(sql, dialect="sqlite")
        source = tree.find(exp.From) if isinstance(tree, exp.Select) else None
        table = source.this if source is not None else None
        if isinstance(table, exp.Table) and table.name.lower() == "emp":
            alias = table.alias_or_name
            tree = tree.join("dept AS parent_row", on=f"{alias}.dept_id = parent_row.id")
            if how == "parent key read" and not tree.args.get("group"):
                tree = tree.select("parent_row.id").where("parent_row.id > 1")
            if how == "parent filtered":
                tree = tree.where("parent_row.budget > 2 OR parent_row.title = 'b'")
            if how == "parent key counted":
                for part in ("group", "having", "order", "limit", "offset", "distinct"):
                    tree.set(part, None)
                tree.set("expressions", [sqlglot.parse_one("COUNT(parent_row.id)")])
            sql = tree.sql(dialect="sqlite")
    if how == "case folded":
        tree = sqlglot.parse_one(sql, dialect="sqlite")
        first = tree.expressions[0] if isinstance(tree, exp.Select) and tree.expressions \
            else None
        if first is not None and not isinstance(first, exp.Star):
            value = first.this if isinstance(first, exp.Alias) else first
            folded = exp.Upper(this=exp.Lower(this=value.copy()))
            value.replace(folded)
            sql = tree.sql(dialect="sqlite")
    return sql


def _over_first_column(sql: str, how: str) -> str:
    """``sql`` as a derived table whose first column is counted, or grouped by and
    selected (``SELECT c0 FROM (…) GROUP BY c0``)."""
    tree = sqlglot.parse_one(sql, dialect="sqlite")
    if not isinstance(tree, exp.Select) or not tree.expressions or \
            isinstance(tree.expressions[0], exp.Star):
        return sql
    first = tree.expressions[0]
    value = first.this if isinstance(first, exp.Alias) else first
    first.replace(exp.alias_(value.copy(), "c0"))
    inner = tree.sql(dialect="sqlite")
    if how == "first column counted":
        return f"SELECT COUNT(w.c0) FROM ({inner}) AS w"
    return f"SELECT w.c0 FROM ({inner}) AS w GROUP BY w.c0"


def _condition_selected(sql: str) -> str:
    """``sql`` with a conjunct of its WHERE selected again, bare and in a CASE."""
    tree = sqlglot.parse_one(sql, dialect="sqlite")
    where = tree.args.get("where") if isinstance(tree, exp.Select) else None
    if where is None or tree.args.get("group"):
        return sql
    cond = where.this
    while isinstance(cond, exp.And):  # its last conjunct
        cond = cond.expression
    text = cond.sql(dialect="sqlite")
    tree = tree.select(f"({text})", f"CASE WHEN ({text}) AND 1 = 1 THEN 1 ELSE 0 END")
    return tree.sql(dialect="sqlite")


def _prepared(sql: str, ddl: str, data: str = "declared"):
    """(schema, bound plan, the plan rendered back to SQL), or why ``sql`` is skipped."""
    schema = schema_from_ddl(ddl).with_data(data)
    try:
        plan = bind(parse(sql), schema)
    except SpotItError as e:
        return RuleOutcome("skipped", detail=f"not bound: {e}")
    why = nondeterminism(plan)
    if why is not None:
        return RuleOutcome("skipped", detail=f"not determined by the database: {why}")
    try:
        return schema, plan, plan_sql(plan, schema)
    except Unsupported as e:
        return RuleOutcome("skipped", detail=f"not rendered: {e}")


@crash_proof(lambda detail: RuleOutcome(CRASH, detail=detail))
def check_rules(sql: str, ddl: str = FUZZ_DDL, databases: int = DATABASES,
                semantics: tuple[str, ...] = SEMANTICS,
                known_database: dict | None = None, data: str = "declared") -> RuleOutcome:
    """Rewrite ``sql``'s plan with the rules under each semantics and compare the
    rendered canonical form with ``sql`` on random databases (or ``known_database``).

    ``data="sqlite"``: the schema as ``--data sqlite`` has it -- no foreign key assumed
    -- and random databases whose rows may point nowhere; a rule that needs a foreign
    key (``FOREIGN_KEY_RULES``) must not fire there at all."""
    from spotit.canonical import FOREIGN_KEY_RULES, canonical

    prepared = _prepared(sql, ddl, data)
    if isinstance(prepared, RuleOutcome):
        return prepared
    schema, plan, original = prepared
    forms: dict[str, tuple[str, tuple[str, ...]]] = {}  # semantics -> (sql, rules)
    skipped: dict[str, str] = {}
    for sem in semantics:
        form, rules = canonical(plan, sem)
        if not rules:
            skipped[sem] = "no rule fired"
            continue
        unfounded = [r for r in rules if r in FOREIGN_KEY_RULES]
        if data == "sqlite" and unfounded:
            return RuleOutcome("divergence", detail=f"{', '.join(unfounded)} fired where no "
                               "foreign key is assumed", semantics=sem, rules=rules, data=data)
        why = nondeterminism(form)
        if why is not None:
            # the rules made a determined query undetermined: that is a finding
            return RuleOutcome("divergence", detail=f"the canonical form is not determined "
                               f"by the database ({why})", semantics=sem, rules=rules)
        try:
            forms[sem] = (plan_sql(form, schema), rules)
        except Unsupported as e:
            skipped[sem] = f"not rendered: {e}"
    if not forms:
        return RuleOutcome("skipped", detail="nothing to compare", skipped=skipped)
    found = _compare(schema, sql, original, forms, databases, known_database)
    if found is not None:
        return replace(found, data=data)
    return RuleOutcome("ok", {s: r for s, (_, r) in forms.items()}, skipped=skipped,
                       data=data)


@crash_proof(lambda detail: RuleOutcome(CRASH, detail=detail))
def check_rendering(sql: str, ddl: str = FUZZ_DDL, databases: int = DATABASES) -> RuleOutcome:
    """The renderer alone: ``sql``'s bound plan rendered back to SQL must give
    ``sql``'s rows (as a bag) on random databases."""
    prepared = _prepared(sql, ddl)
    if isinstance(prepared, RuleOutcome):
        return prepared
    schema, _, original = prepared
    found = _compare(schema, sql, original, {}, databases, None)
    return found if found is not None else RuleOutcome("ok", canonical_sql=original)


def _compare(schema: Schema, sql: str, original: str,
             forms: dict[str, tuple[str, tuple[str, ...]]], databases: int,
             known_database: dict | None) -> RuleOutcome | None:
    """The first database on which a canonical form (or the rendered original)
    differs from ``sql``, as an outcome; None if there is none."""
    pool, tables = literal_pool(schema, (sql,))
    sampler = DatabaseSampler(schema, tables, pool, random.Random(zlib.crc32(sql.encode())),
                              MAX_ROWS)
    conn = schema.create_database()
    try:
        for _ in range(1 if known_database is not None else databases):
            rows: Rows = ({t: [tuple(r) for r in rs] for t, rs in known_database.items()}
                          if known_database is not None else sampler.database())
            got = _run(conn, schema, rows, [sql, original, *(s for s, _ in forms.values())])
            if got is None:
                continue
            want, rendered, *results = got
            db = {t: [list(r) for r in rs] for t, rs in rows.items()}
            if Counter(rendered) != Counter(want):
                return RuleOutcome(
                    "divergence", detail="the renderer: the original plan rendered gives "
                    f"other rows than the query ({original})", canonical_sql=original,
                    database=db, original_rows=want, canonical_rows=rendered)
            for (sem, (form_sql, rules)), res in zip(forms.items(), results, strict=True):
                if _differ(want, res, sem):
                    return RuleOutcome(
                        "divergence", detail=f"under {sem} semantics the rules "
                        f"{', '.join(rules)} changed the result", semantics=sem, rules=rules,
                        canonical_sql=form_sql, database=db, original_rows=want,
                        canonical_rows=res)
    finally:
        conn.close()
    return None


def _run(conn: sqlite3.Connection, schema: Schema, rows: Rows, queries: list[str]
         ) -> list[list[tuple]] | None:
    """Each query's rows on the database (None: SQLite rejects the database, or the
    first query fails on it -- an integer overflow; a rewrite failing is a crash)."""
    conn.execute("SAVEPOINT rules")
    try:
        try:
            insert_rows(conn, schema, rows)
            first = conn.execute(queries[0]).fetchall()
        except (sqlite3.Error, OverflowError):
            return None  # a CHECK constraint or a key the sampler did not foresee
        return [first, *(conn.execute(q).fetchall() for q in queries[1:])]
    finally:
        conn.execute("ROLLBACK TO rules")
        conn.execute("RELEASE rules")


def _differ(a: list[tuple], b: list[tuple], semantics: str) -> bool:
    """Results differ as the semantics compares rows, and storage classes count: a rule
    must not turn INTEGER 1 into REAL 1.0 (Spider 2.0's evaluator reads them as the
    texts '1' and '1.0' in a column with text)."""
    a, b = [_typed(r) for r in a], [_typed(r) for r in b]
    if semantics == "set":
        return set(a) != set(b)
    return Counter(a) != Counter(b)  # bag; list compared as a bag too (order unchecked)


def _typed(row: tuple) -> tuple:
    return tuple((type(v).__name__, v) for v in row)
