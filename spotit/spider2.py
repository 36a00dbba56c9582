"""Spider 2.0-lite's comparison of results, as its evaluator applies it.

The evaluator (``evaluate.py`` of Spider 2.0-lite) runs a query on SQLite with
pandas (``read_sql_query`` in chunks of 500 rows), writes the result to a CSV
file, reads it back with ``read_csv`` (so types are inferred again from text:
``'1'`` and ``1`` are both the number 1, ``''`` and NULL both NaN), and does the
same for the gold. Then every gold column (or each of ``condition_cols``) must
equal some column of the prediction, as a vector: NaN equals NaN, numbers are
equal within 0.01 (``math.isclose``), anything else by ``==``; with
``ignore_order`` each vector is first sorted by ``(is None, str(x), is number)``.
Column names and order, and the prediction's extra columns, do not matter.

This module reproduces that with pandas itself (the CSV round trip is pandas'
own), so a counterexample SpotIt reports is one the evaluator would score 0.
"""

from __future__ import annotations

import io
import math
from typing import Any

from spotit.encodings.equivalence import SPIDER2_TOLERANCE, Spider2

CHUNK_ROWS = 500  # read_sql_query's chunksize in the evaluator


def as_read_back(rows: list[tuple], width: int):
    """The result as the evaluator holds it: a DataFrame re-read from its CSV file."""
    import pandas as pd

    names = [f"c{i}" for i in range(width)]
    buf = io.StringIO()
    chunks = [rows[i:i + CHUNK_ROWS] for i in range(0, len(rows), CHUNK_ROWS)] or [[]]
    for n, chunk in enumerate(chunks):
        frame = pd.DataFrame.from_records(chunk, columns=names, coerce_float=True)
        frame.to_csv(buf, header=n == 0, index=False)
    buf.seek(0)
    return pd.read_csv(buf)


def _sort_key(x: Any) -> tuple:
    return (x is None, str(x), isinstance(x, (int, float)))


def vectors_match(v1: list, v2: list, ignore_order: bool) -> bool:
    """One gold column against one prediction column, as the evaluator compares them."""
    import pandas as pd

    if ignore_order:
        v1, v2 = sorted(v1, key=_sort_key), sorted(v2, key=_sort_key)
    if len(v1) != len(v2):
        return False
    for a, b in zip(v1, v2, strict=True):
        if pd.isna(a) and pd.isna(b):
            continue
        if isinstance(a, (int, float)) and isinstance(b, (int, float)):
            if not math.isclose(float(a), float(b), abs_tol=SPIDER2_TOLERANCE):
                return False
        elif a != b:
            return False
    return True


def results_match(gold: list[tuple], pred: list[tuple], how: Spider2,
                  widths: tuple[int, int] | None = None) -> bool:
    """Would the evaluator score the prediction's result 1 against the gold's?

    ``widths`` (gold, prediction) matter only for empty results: a CSV file of no
    rows still has its header."""
    gw = len(gold[0]) if gold else (widths[0] if widths else None)
    pw = len(pred[0]) if pred else (widths[1] if widths else None)
    if gw is None or pw is None:
        # no rows, width unknown: every vector of an empty result is empty
        return not gold and not pred
    g = as_read_back(gold, gw)
    p = as_read_back(pred, pw)
    columns = how.gold_columns(gw)
    if columns is None:
        return False  # the evaluator's iloc raises: scored 0
    g = g.iloc[:, list(columns)]
    gold_vectors = g.transpose().values.tolist()
    pred_vectors = p.transpose().values.tolist()
    ignore_order = not how.ordered
    return all(any(vectors_match(gv, pv, ignore_order) for pv in pred_vectors)
               for gv in gold_vectors)
