"""Write the SMT-LIB 2.6 script of each bound, for any SMT-LIB solver.

The files are exactly what SpotIt hands to z3 and cvc5 (plus ``(check-sat)``):
sat means "the queries differ on some database of at most k rows per table".
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from spotit.encodings.equivalence import Semantics
from spotit.pipeline import Checker, CheckOptions, coerce_schema, in_sqlite
from spotit.smt.printer import SmtLibWriter


def export_smtlib(schema, gold: str, pred: str, *, out_dir: str | Path, bound: int = 5,
                  semantics: str = "set", db_id: str | None = None,
                  now: datetime | None = None, dialect: str = "sqlite") -> list[Path]:
    sch = coerce_schema(schema, db_id)
    opts = CheckOptions(bound=bound, semantics=Semantics(semantics))
    if now is not None:
        opts.now = now
    if dialect.strip().lower() != "sqlite":
        gold, pred = in_sqlite(gold, pred, dialect, sch, opts.semantics)
    checker = Checker(sch, opts)
    gold_plan = checker.plan(gold, "gold")
    pred_plan = checker.plan(pred, "pred")
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    for k in range(1, bound + 1):
        enc, assertions = checker.encode(k, gold_plan, pred_plan)
        comments = [
            f"SpotIt bounded equivalence, k = {k} rows per table, {semantics} semantics",
            "sat: the queries differ on some database of at most k rows per table",
            "gold: " + " ".join(gold.split()),
            "pred: " + " ".join(pred.split()),
        ]
        if enc.approximations:
            comments.append("over-approximated (sat may be spurious): "
                            + ", ".join(sorted(enc.approximations)))
        text = SmtLibWriter().script(assertions, check_sat=True, comments=comments)
        path = out / f"k{k}.smt2"
        path.write_text(text, encoding="utf-8")
        paths.append(path)
    return paths
