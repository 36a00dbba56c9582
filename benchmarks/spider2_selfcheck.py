"""Spider 2.0-lite's public SQLite gold queries against themselves, against rewrites
that keep their meaning, and against mutations that change it.

Plain script, not a test::

    python benchmarks/spider2_selfcheck.py [--bound 3] [--timeout 60] [--only local219]
        [--kinds operator ...] [--every-site] [--gold-dir DIR] [--json out.json]

Data: ``../shared/data/spider2`` (or ``$SPIDER2_DIR``): ``local_tasks.jsonl``,
``gold/<instance_id>.sql``, ``schemas/<db>.sql``. ``--gold-dir
benchmarks/spider2_standins`` checks instead 60 queries written here for tasks whose gold
is not public (each as a strong system would answer the task's question, accepted by
SQLite on its schema): the same measure on queries no rule was tuned to. Per query:

- ``self``: the query against itself (decided, and how fast);
- rewrites that keep the meaning -- ``where-true`` (``SELECT * FROM (q) AS w WHERE 1 =
  1``), ``flip`` (``a < b`` as ``b > a``), ``commute`` (``x AND y`` as ``y AND x``),
  ``between`` (``x BETWEEN a AND b`` as two comparisons), ``aliases`` (every table alias
  renamed), ``inline`` (every CTE written as a subquery where it is used),
  ``join-order`` (the first inner join's two sides swapped): never ``not_equivalent``;
- mutations that change it (``operator``, ``constant``, ``drop``, ``limit``,
  ``direction``): ``not_equivalent`` (SQLite-confirmed) where SQLite can tell them apart.

Printed: per kind the verdict counts, median and p95 seconds, the slowest; how many
checks ran past ``--timeout`` by more than 2 s.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

import sqlglot
from sqlglot import exp

import spotit
from spotit.proofs.queries import _mutate, _sites

ROOT = Path(__file__).resolve().parent.parent
DATA = Path(os.environ.get("SPIDER2_DIR", ROOT.parent / "shared" / "data" / "spider2"))
# queries written here, as a strong system would, for tasks whose gold is not public
STANDINS = ROOT / "benchmarks" / "spider2_standins"
KEEPING = ("flip", "commute", "between")
CHANGING = ("operator", "constant", "drop", "limit", "direction")


def variants(sql: str, every_site: bool = False) -> list[tuple[str, str, bool]]:
    """(kind, query, keeps the meaning) for the gold ``sql``; a mutation at the middle
    site of its kind, or (``every_site``) one per site."""
    out = [("self", sql, True),
           ("where-true", f"SELECT * FROM (\n{sql.strip().rstrip(';')}\n) AS w WHERE 1 = 1", True)]
    try:
        tree = sqlglot.parse_one(sql, dialect="sqlite")
    except sqlglot.errors.ParseError:
        return out
    sites = _sites(tree)
    for kind in (*KEEPING, *CHANGING):
        at = [i for i, (k, _) in enumerate(sites) if k == kind]
        if not at:
            continue
        for site in (at if every_site and kind in CHANGING else [at[len(at) // 2]]):
            t = tree.copy()
            _mutate(kind, _sites(t)[site][1], 1)
            out.append((kind, t.sql(dialect="sqlite"), kind in KEEPING))
    renamed = tree.copy()
    # table and subquery aliases, not the names of CTEs (FROM refers to those)
    ctes = {a.name for a in renamed.find_all(exp.TableAlias) if isinstance(a.parent, exp.CTE)}
    aliases = {a.name for a in renamed.find_all(exp.TableAlias)
               if a.name and not isinstance(a.parent, exp.CTE)} - ctes
    if aliases:
        mapping = {a: f"zz_{i}" for i, a in enumerate(sorted(aliases))}
        for node in renamed.find_all(exp.TableAlias):
            if node.name in mapping and not isinstance(node.parent, exp.CTE):
                node.set("this", exp.to_identifier(mapping[node.name]))
        for col in renamed.find_all(exp.Column):
            if col.table in mapping:
                col.set("table", exp.to_identifier(mapping[col.table]))
        out.append(("aliases", renamed.sql(dialect="sqlite"), True))
    if (inlined := _inline_ctes(tree)) is not None:
        out.append(("inline", inlined, True))
    if (swapped := _swap_first_join(tree)) is not None:
        out.append(("join-order", swapped, True))
    return out


def _inline_ctes(tree: exp.Expression) -> str | None:
    """Every non-recursive CTE written where it is used, as a subquery under the name
    the use had (None if the query has none, or a recursive one)."""
    with_ = tree.args.get("with_") or tree.args.get("with")  # the key sqlglot 30 uses
    if with_ is None or with_.args.get("recursive"):
        return None
    t = tree.copy()
    key = "with_" if t.args.get("with_") else "with"
    ctes = list(t.args[key].expressions)
    names = {c.alias_or_name.lower() for c in ctes}
    for i, cte in enumerate(ctes):
        name = cte.alias_or_name.lower()
        if any(tb.name.lower() == name for tb in cte.this.find_all(exp.Table)):
            return None  # refers to itself: recursive without the keyword
        # uses in later CTEs and in the main query; the CTE body as it is now (earlier
        # CTEs already inlined into it)
        scopes = [c.this for c in ctes[i + 1:]] + [t]
        for scope in scopes:
            for tb in list(scope.find_all(exp.Table)):
                if tb.name.lower() == name and not tb.args.get("db"):
                    alias = tb.alias or tb.name
                    tb.replace(exp.Subquery(this=cte.this.copy(),
                                            alias=exp.TableAlias(this=exp.to_identifier(alias))))
    if not names:
        return None
    t.set(key, None)
    return t.sql(dialect="sqlite")


def _swap_first_join(tree: exp.Expression) -> str | None:
    """``FROM a JOIN b ON c ...`` as ``FROM b JOIN a ON c ...`` in the first SELECT with
    an inner join on a condition and no ``*`` (whose column order would change)."""
    t = tree.copy()
    for select in t.find_all(exp.Select):
        joins = select.args.get("joins") or []
        from_ = select.args.get("from_") or select.args.get("from")
        if not joins or from_ is None or any(isinstance(e, exp.Star) or (
                isinstance(e, exp.Column) and isinstance(e.this, exp.Star))
                for e in select.expressions):
            continue
        first = joins[0]
        if first.side or first.kind not in ("", "INNER") or first.args.get("using") \
                or first.args.get("on") is None:
            continue
        left, right = from_.this, first.this
        from_.set("this", right.copy())
        first.set("this", left.copy())
        return t.sql(dialect="sqlite")
    return None


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bound", type=int, default=3)
    ap.add_argument("--timeout", type=float, default=60.0)
    ap.add_argument("--only", nargs="*")
    ap.add_argument("--kinds", nargs="*", help="only these variants (default: all)")
    ap.add_argument("--every-site", action="store_true",
                    help="a mutation at every site of its kind, not only the middle one")
    ap.add_argument("--gold-dir", type=Path,
                    help="the queries to check, <instance_id>.sql (default: the public gold; "
                    f"{STANDINS.relative_to(ROOT)} holds stand-ins for 60 tasks without one)")
    ap.add_argument("--json")
    args = ap.parse_args(argv)
    if not (DATA / "local_tasks.jsonl").exists():
        print(f"no Spider 2.0 data in {DATA}", file=sys.stderr)
        return 2
    tasks = {json.loads(line)["instance_id"]: json.loads(line)
             for line in (DATA / "local_tasks.jsonl").read_text().splitlines() if line}
    rows = []
    for path in sorted((args.gold_dir or DATA / "gold").glob("local*.sql")):
        iid = path.stem
        if args.only and iid not in args.only:
            continue
        ddl = (DATA / "schemas" / f"{tasks[iid]['db']}.sql").read_text()
        gold = path.read_text()
        for kind, other, keeps in variants(gold, args.every_site):
            if args.kinds and kind not in args.kinds:
                continue
            start = time.monotonic()
            r = spotit.check(ddl, gold, other, bound=args.bound, timeout=args.timeout)
            took = time.monotonic() - start
            rows.append({"task": iid, "kind": kind, "keeps": keeps, "verdict": r.verdict.value,
                         "seconds": round(took, 2), "reason": r.reason[:200]})
            print(f"{iid} {kind:10} {r.verdict.value:15} {took:7.2f} s  {r.reason[:90]}",
                  flush=True)
    by_kind: dict[str, list[dict]] = defaultdict(list)
    for row in rows:
        by_kind[row["kind"]].append(row)
    summary = {}
    for kind, rs in by_kind.items():
        secs = sorted(r["seconds"] for r in rs)
        summary[kind] = {
            "n": len(rs), "verdicts": dict(Counter(r["verdict"] for r in rs)),
            "median_s": statistics.median(secs),
            "p95_s": secs[min(len(secs) - 1, int(0.95 * len(secs)))],
            "slowest": max(rs, key=lambda r: r["seconds"])["task"]}
    keeping = [r for r in rows if r["keeps"]]
    summary["meaning kept"] = {
        "n": len(keeping),
        "not_equivalent": sum(r["verdict"] == "not_equivalent" for r in keeping),
        "timeouts": sum(r["verdict"] == "timeout" for r in keeping)}
    # the time limit is a promise: a check ends within --timeout plus a second or two
    summary["time limit kept"] = {
        "over_by_more_than_2s": sum(r["seconds"] > args.timeout + 2 for r in rows),
        "most_over_s": round(max([r["seconds"] - args.timeout for r in rows] + [0.0]), 2)}
    print(json.dumps(summary, indent=2))
    if args.json:
        Path(args.json).write_text(json.dumps({"summary": summary, "rows": rows}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
