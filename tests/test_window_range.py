"""RANGE frames with N PRECEDING / FOLLOWING, against SQLite (Thm 1 on window calls):
the encoding, pinned to each table, must give SQLite's value for every row. The table
mixes integer, real, text and NULL keys, ties, and both directions and NULL orders."""

from __future__ import annotations

import pytest

from spotit.proofs.windows import WindowCase, check_window

# (p, o INTEGER, r REAL, s TEXT NOCASE, x without affinity), one tuple per row
ROWS = ((1, 1, 0.5, "a", 1), (1, 2, 2.5, None, "a"), (None, 2, 1.0, "b", 2.5),
        (1, None, None, "A", None))
FRAMES = ["RANGE BETWEEN 1 PRECEDING AND 1 FOLLOWING",
          "RANGE BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING",
          "RANGE BETWEEN 1 FOLLOWING AND UNBOUNDED FOLLOWING",
          "RANGE BETWEEN 0.5 PRECEDING AND CURRENT ROW",
          "RANGE BETWEEN 1.5 PRECEDING AND 0.5 FOLLOWING EXCLUDE TIES"]
ORDERS = ["o", "r DESC", "x", "x DESC NULLS FIRST", "o NULLS LAST"]


@pytest.mark.parametrize("frame", FRAMES)
@pytest.mark.parametrize("order", ORDERS)
def test_range_offsets_agree_with_sqlite(order, frame):
    for call in (f"COUNT(*) OVER (ORDER BY {order} {frame})",
                 f"MIN(id) OVER (PARTITION BY p ORDER BY {order} {frame})"):
        out = check_window(WindowCase(ROWS, call))
        assert out.kind == "ok", (call, out)


def test_range_offsets_need_one_order_term():
    from spotit import check

    query = "SELECT COUNT(*) OVER (ORDER BY o, r RANGE 1 PRECEDING) FROM w"
    res = check(WindowCase(ROWS, "").ddl, query, "SELECT 1 FROM w", bound=2)
    assert res.verdict.value == "error" and "requires one ORDER BY expression" in res.reason
