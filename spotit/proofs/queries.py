"""End to end: query pairs made by mutating seed queries, judged against SQLite.

A pair is a seed query and a mutant of it: an operator or constant changed,
a join made LEFT, DISTINCT toggled, an aggregate swapped, a conjunct dropped,
LIMIT or sort direction changed (mostly inequivalent), or a rewrite that keeps
the meaning (comparison flipped, BETWEEN spelled out, conjuncts commuted;
equivalent, so the prover is exercised too). Mutations work on sqlglot's
SQLite syntax tree.

For each pair, random databases in SQLite look for the smallest difference;
then the verifier (solver only, no random search of its own) must not prove
any bound at or above the size of a database SQLite already showed a
difference on. Its ``spurious`` candidates are counted: they measure how
often the encoding is looser than SQLite.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

import sqlglot
from hypothesis import strategies as st
from sqlglot import exp

from spotit.encodings.equivalence import Semantics
from spotit.proofs.crashes import CRASH, INTERNAL_ERROR, crash_proof
from spotit.proofs.seeds import Seed, bundled_seeds
from spotit.schema import Schema, schema_from_ddl

FUZZ_DDL = """
CREATE TABLE dept (id INTEGER PRIMARY KEY, title TEXT NOT NULL, budget INTEGER);
CREATE TABLE emp (
  id INTEGER PRIMARY KEY,
  name TEXT,
  dept_id INTEGER REFERENCES dept(id),
  salary REAL,
  hired DATE
);
"""

# The same tables with the schema features queries are most easily misread under:
# collations (on a key, a joined and a compared column), CHECK constraints, a
# generated column, a view, a NOCASE-unique column and the hidden rowid.
FUZZ_DDL_FEATURES = """
CREATE TABLE dept (
  id INTEGER PRIMARY KEY,
  title TEXT NOT NULL COLLATE NOCASE UNIQUE,
  budget INTEGER CHECK (budget IS NULL OR budget >= 0)
);
CREATE TABLE emp (
  id INTEGER PRIMARY KEY,
  name TEXT COLLATE RTRIM,
  dept_id INTEGER REFERENCES dept(id),
  salary REAL CHECK (salary <> 13),
  hired DATE,
  bonus REAL AS (salary / 10)
);
CREATE VIEW staff AS SELECT id, name, salary FROM emp WHERE dept_id IS NOT NULL;
"""
FUZZ_DDLS = (FUZZ_DDL, FUZZ_DDL_FEATURES)

SEEDS = (
    "SELECT name FROM emp WHERE salary > 100",
    "SELECT e.name, d.title FROM emp AS e JOIN dept AS d ON e.dept_id = d.id "
    "WHERE d.budget >= 10",
    "SELECT d.title, COUNT(e.id) FROM dept AS d LEFT JOIN emp AS e ON e.dept_id = d.id "
    "GROUP BY d.title",
    "SELECT dept_id, AVG(salary) FROM emp GROUP BY dept_id HAVING COUNT(*) > 1",
    "SELECT DISTINCT dept_id FROM emp WHERE name LIKE 'a%'",
    "SELECT name FROM emp WHERE dept_id IN (SELECT id FROM dept WHERE budget < 5)",
    "SELECT name FROM emp UNION SELECT title FROM dept",
    "SELECT dept_id FROM emp INTERSECT SELECT id FROM dept WHERE budget > 0",
    "SELECT id FROM dept EXCEPT SELECT dept_id FROM emp",
    "SELECT name, salary FROM emp ORDER BY salary DESC LIMIT 1",
    "SELECT MAX(salary), MIN(hired) FROM emp WHERE hired >= '2020-01-01'",
    "SELECT title FROM dept AS d WHERE EXISTS (SELECT 1 FROM emp AS e "
    "WHERE e.dept_id = d.id AND e.salary > 50)",
    "SELECT name, (SELECT title FROM dept WHERE dept.id = emp.dept_id) FROM emp",
    "SELECT SUM(CASE WHEN salary > 10 THEN 1 ELSE 0 END) FROM emp",
    "SELECT CAST(COUNT(salary) AS REAL) * 100 / COUNT(*) FROM emp",
    "SELECT STRFTIME('%Y', hired), COUNT(*) FROM emp GROUP BY STRFTIME('%Y', hired)",
    "WITH rich AS (SELECT * FROM emp WHERE salary > 5) SELECT name FROM rich",
    "SELECT name FROM emp WHERE salary BETWEEN 1 AND 10 AND name IS NOT NULL",
    "SELECT name FROM emp WHERE id IN (1, 2, 3) OR name = 'Bob'",
    "SELECT column1 FROM (VALUES (1), (2)) WHERE column1 > 1",
    "SELECT d.title FROM dept AS d JOIN emp AS e ON e.dept_id = d.id "
    "WHERE e.hired LIKE '2019%' ORDER BY e.salary LIMIT 2",
    "SELECT COUNT(DISTINCT dept_id) FROM emp WHERE salary <> 3",
    "SELECT title FROM dept WHERE title = 'Sales' ORDER BY title LIMIT 1",
    "SELECT DISTINCT name FROM emp WHERE name >= 'a'",
    "SELECT title, MAX(name) FROM dept AS d JOIN emp AS e ON e.dept_id = d.id GROUP BY title",
    "SELECT name FROM emp WHERE name IN ('Ann', 'Bob') UNION SELECT title FROM dept",
    "SELECT name FROM (SELECT name, RANK() OVER (PARTITION BY dept_id ORDER BY salary DESC) "
    "AS r FROM emp) WHERE r = 1",
    "SELECT name, SUM(salary) OVER (ORDER BY hired) FROM emp WHERE salary > 2",
    "SELECT DISTINCT dept_id FROM emp ORDER BY salary LIMIT 2",
    "WITH RECURSIVE r(id, d) AS (SELECT id, 0 FROM emp WHERE salary > 10 UNION "
    "SELECT e.id, r.d + 1 FROM emp AS e JOIN r ON e.dept_id = r.id WHERE r.d < 2) "
    "SELECT id, MAX(d) FROM r GROUP BY id",
    # recursions that read no table: their rounds are constants, run to the end
    "WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < 40) "
    "SELECT name FROM emp WHERE salary IN (SELECT n FROM c)",
    "WITH RECURSIVE d(day) AS (SELECT '2019-12-25' UNION ALL SELECT DATE(day, '+1 day') "
    "FROM d WHERE day < '2020-01-10') SELECT d.day, COUNT(e.id) FROM d "
    "LEFT JOIN emp AS e ON e.hired = d.day GROUP BY d.day",
)
# seeds that only the feature schema can run
FEATURE_SEEDS = (
    "SELECT name, bonus FROM emp WHERE bonus > 1",
    "SELECT name FROM staff WHERE salary < 100",
    "SELECT rowid, title FROM dept WHERE budget > 2",
)

_COMPARISONS = (exp.GT, exp.GTE, exp.LT, exp.LTE, exp.EQ, exp.NEQ)
_FLIPPED = {exp.GT: exp.LT, exp.GTE: exp.LTE, exp.LT: exp.GT, exp.LTE: exp.GTE,
            exp.EQ: exp.EQ, exp.NEQ: exp.NEQ}
_AGGREGATES = (exp.Count, exp.Sum, exp.Avg, exp.Min, exp.Max)


@lru_cache(maxsize=256)
def _schema(ddl: str) -> Schema:
    """A pair's schema (a user's seeds bring many, each used by many pairs)."""
    return schema_from_ddl(ddl)


def fuzz_schema() -> Schema:
    return schema_from_ddl(FUZZ_DDL)


def _sites(tree: exp.Expression) -> list[tuple[str, exp.Expression]]:
    """Every (mutation, node) the tree allows."""
    out: list[tuple[str, exp.Expression]] = []
    for node in tree.walk():
        if isinstance(node, _COMPARISONS):
            out += [("operator", node), ("flip", node)]
        elif isinstance(node, exp.Literal) and not isinstance(node.parent, exp.Limit):
            out += [("constant", node), ("quote", node)]
        elif isinstance(node, exp.Join):
            out.append(("join", node))
        elif isinstance(node, exp.Select):
            out.append(("distinct", node))
        elif isinstance(node, _AGGREGATES):
            out.append(("aggregate", node))
        elif isinstance(node, exp.And):
            out += [("drop", node), ("commute", node), ("or", node)]
        elif isinstance(node, exp.Limit):
            out.append(("limit", node))
        elif isinstance(node, exp.Ordered):
            out.append(("direction", node))
        elif isinstance(node, exp.Between):
            out.append(("between", node))
        elif isinstance(node, exp.Union | exp.Intersect | exp.Except):
            out.append(("setop", node))
        if isinstance(node, (*_COMPARISONS, exp.Ordered, exp.Collate)):
            out.append(("collate", node))
    return out


def _mutate(kind: str, node: exp.Expression, choice: int) -> None:
    """Apply mutation ``kind`` to ``node`` in place (``choice`` picks among variants)."""
    if kind == "operator":
        others = [c for c in _COMPARISONS if c is not type(node)]
        node.replace(others[choice % len(others)](this=node.this, expression=node.expression))
    elif kind == "flip":  # a < b  ->  b > a  (same meaning)
        node.replace(_FLIPPED[type(node)](this=node.expression, expression=node.this))
    elif kind == "constant":
        if node.is_string:
            text = node.this
            node.replace(exp.Literal.string(text.upper() if text != text.upper()
                                            else text.lower() + "x"))
        else:
            value = float(node.this) if "." in node.this else int(node.this)
            node.replace(exp.Literal.number(value + (1 if choice % 2 else -1)))
    elif kind == "quote":  # 5 <-> '5': the same under a column's comparison affinity only
        if node.is_string:
            text = node.this.strip()
            if text.lstrip("-").replace(".", "", 1).isdigit():
                node.replace(exp.Literal.number(text))
        else:
            node.replace(exp.Literal.string(node.this))
    elif kind == "join":  # INNER JOIN <-> LEFT JOIN (never 'LEFT INNER', 'OUTER')
        node.set("side", None if node.side else "LEFT")
        node.set("kind", None)
    elif kind == "distinct":
        node.set("distinct", None if node.args.get("distinct") else exp.Distinct())
    elif kind == "aggregate":
        if node.this is None or isinstance(node.this, exp.Star):  # COUNT(*) -> COUNT(1)
            node.replace(exp.Count(this=exp.Literal.number(1)))
            return
        others = [c for c in _AGGREGATES if c is not type(node)]
        node.replace(others[choice % len(others)](this=node.this.copy()))
    elif kind == "drop":
        node.replace((node.this if choice % 2 else node.expression).copy())
    elif kind == "commute":  # same meaning
        node.replace(exp.And(this=node.expression.copy(), expression=node.this.copy()))
    elif kind == "or":
        node.replace(exp.Or(this=node.this.copy(), expression=node.expression.copy()))
    elif kind == "limit":
        n = node.expression
        if isinstance(n, exp.Literal):
            node.set("expression", exp.Literal.number(int(n.this) + 1))
    elif kind == "direction":
        node.set("desc", not node.args.get("desc"))
    elif kind == "between":  # x BETWEEN a AND b  ->  x >= a AND x <= b  (same meaning)
        x = node.this
        node.replace(exp.paren(exp.and_(exp.GTE(this=x.copy(), expression=node.args["low"]),
                                        exp.LTE(this=x.copy(), expression=node.args["high"]))))
    elif kind == "collate":  # add, change or drop an explicit collation
        target = node if isinstance(node, exp.Collate) else node.this
        if isinstance(target, exp.Collate):
            target.replace(target.this.copy())
        else:
            name = ("NOCASE", "RTRIM", "BINARY")[choice % 3]
            target.replace(exp.Collate(this=target.copy(), expression=exp.Var(this=name)))
    elif kind == "setop":  # UNION <-> UNION ALL; INTERSECT <-> EXCEPT (SQLite has no ALL)
        if isinstance(node, exp.Union):
            node.set("distinct", not node.args.get("distinct", True))
        else:
            other = exp.Except if isinstance(node, exp.Intersect) else exp.Intersect
            node.replace(other(this=node.this.copy(), expression=node.expression.copy(),
                               distinct=True))


def mutant(seed_sql: str, picks: list[tuple[int, int]]) -> str:
    """The seed with mutations applied (each pick: site index, variant)."""
    tree = sqlglot.parse_one(seed_sql, dialect="sqlite")
    for site, choice in picks:
        sites = _sites(tree)
        if not sites:
            break
        kind, node = sites[site % len(sites)]
        _mutate(kind, node, choice)
    return tree.sql(dialect="sqlite")


@st.composite
def query_pairs(draw, seeds: Sequence[Seed] = ()) -> tuple[str, str, str]:
    """(schema DDL, gold, pred): a seed (as sqlglot writes it) and a mutant with 1-2
    mutations: from ``seeds`` (a user's queries, :mod:`spotit.proofs.seeds`) over
    theirs, or else half from the hand-written seeds over the fuzz schemas and half
    from the bundled BIRD-style corpus over its schemas."""
    if not seeds and draw(st.booleans()):
        seeds = bundled_seeds()  # half the pairs: the BIRD-style corpus
    if seeds:
        seed = draw(st.sampled_from(seeds))
        ddl, seed_sql = seed.ddl, seed.sql
    else:
        ddl = draw(st.sampled_from(FUZZ_DDLS))
        bundled = SEEDS + FEATURE_SEEDS if ddl is FUZZ_DDL_FEATURES else SEEDS
        seed_sql = draw(st.sampled_from(bundled))
    picks = draw(st.lists(st.tuples(st.integers(0, 50), st.integers(0, 5)),
                          min_size=1, max_size=2))
    gold = sqlglot.parse_one(seed_sql, dialect="sqlite").sql(dialect="sqlite")
    return ddl, gold, mutant(seed_sql, picks)


@dataclass(frozen=True)
class PairOutcome:
    kind: str  # ok | divergence | crash | skipped
    verdict: str
    difference_at: int | None  # rows per table of the smallest SQLite difference found
    proven_bound: int
    spurious: int  # unconfirmed candidates the solver produced
    detail: str = ""
    database: dict | None = None


@crash_proof(lambda detail: PairOutcome(CRASH, "error", None, 0, 0, detail))
def check_query_pair(gold: str, pred: str, solver: str = "z3", bound: int = 2,
                     databases: int = 60, timeout: float = 30.0, ddl: str = FUZZ_DDL,
                     known_database: dict | None = None, cross: tuple[str, ...] = ()
                     ) -> PairOutcome:
    """Run the verifier on one pair; a divergence if it proved a bound that a
    database SQLite shows a difference on (``known_database``, one the ``cross`` solvers
    found, or a random one) fits in. ``cross`` cross-examines solvers: a bound one
    proves unsat while another finds a SQLite-confirmed counterexample within it.

    The verifier runs first: where it proved nothing (a counterexample of one row per
    table, a timeout at the first bound), no difference can contradict it, and the
    witnesses are not looked for (with two solvers, 4 pairs in 10 are such). The
    other solver's own claims are examined where it is the verifier."""
    from spotit.pipeline import check
    from spotit.probe import probe
    from spotit.validate import validate

    schema = _schema(ddl)
    semantics = Semantics.SET
    res = check(schema, gold, pred, bound=bound, solver=solver, probe_trials=0,
                timeout=timeout)
    if res.verdict.value == "error" and INTERNAL_ERROR in res.reason:
        return PairOutcome(CRASH, res.verdict.value, None, res.proven_bound,
                           len(res.spurious), res.reason)
    if res.verdict.value in ("error", "unsupported"):
        return PairOutcome("skipped", res.verdict.value, None, res.proven_bound,
                           len(res.spurious), res.reason)
    # the rows per table up to which the verifier claims the queries agree
    claimed = bound if res.unbounded else min(bound, res.proven_bound)
    if claimed < 1:
        return PairOutcome("ok", res.verdict.value, None, res.proven_bound,
                           len(res.spurious), res.reason)
    witness = ""
    for other in cross:
        if known_database:
            break
        other_res = check(schema, gold, pred, bound=claimed, solver=other, probe_trials=0,
                          timeout=timeout, minimize=False)
        if other_res.verdict.value == "not_equivalent" and \
                other_res.counterexample is not None:
            known_database = {t: [list(r.values()) for r in rows]
                              for t, rows in other_res.counterexample.items()}
            witness = f" ({other} found it)"
    difference_at = None
    database = None
    if known_database:
        rows = {t: [tuple(r) for r in rs] for t, rs in known_database.items()}
        if validate(schema, rows, gold, pred, semantics).confirmed:
            difference_at = max(1, max((len(r) for r in rows.values()), default=0))
            database = known_database
    for m in range(1, claimed + 1 if difference_at is None else 1):
        found = probe(schema, gold, pred, semantics, trials=databases, max_rows=m,
                      seconds=5.0, seed=m)
        if found is not None:
            difference_at = max(1, max((len(r) for r in found.rows.values()), default=0))
            database = {t: [list(r) for r in rows] for t, rows in found.rows.items()}
            break
    if difference_at is not None and (res.proven_bound >= difference_at or res.unbounded):
        # a proof for every database (canonical form, one row per table) is wrong even
        # where SQLite's difference needs more rows than the bound
        proved = (f"every database ({res.proof})" if res.unbounded
                  else f"bound {res.proven_bound}")
        return PairOutcome(
            "divergence", res.verdict.value, difference_at, res.proven_bound,
            len(res.spurious),
            f"SQLite shows a difference on a database of {difference_at} row(s) per table"
            f"{witness if database == known_database else ''}, but the verifier proved "
            f"{proved}", database)
    return PairOutcome("ok", res.verdict.value, difference_at, res.proven_bound,
                       len(res.spurious), res.reason)
