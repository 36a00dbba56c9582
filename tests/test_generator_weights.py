"""The fuzz's generators draw with the weights they state (counted over many draws).

``st.one_of`` flattens a nested ``one_of`` into its branches, so ``one_of(columns,
literals)`` once drew a column one time in eleven; and a filter on a case's strategy
threw away four generated cases in five. These tests count what the strategies give.
"""

from __future__ import annotations

import re

from hypothesis import strategies as st

from spotit.proofs import generators as G
from spotit.proofs.fuzz import expression_cases
from tests.test_thm1_evaluated import sample  # (seeded examples of a strategy)


def test_choice_draws_each_option_alike_however_many_branches_it_has():
    many = st.one_of(*(st.just(f"x{i}") for i in range(10)))
    picks = [v for xs in sample(st.lists(G.choice(st.just("one"), many), min_size=40,
                                         max_size=40), 25, 11)
             for v in xs]
    assert 0.35 < picks.count("one") / len(picks) < 0.65


def test_half_the_leaves_read_the_row():
    for kind in ("any", "num", "text"):
        leaves = [v for xs in sample(st.lists(G.leaf(kind), min_size=40, max_size=40),
                                     25, 11)
                  for v in xs]
        share = sum(G.reads_a_column(v) for v in leaves) / len(leaves)
        assert 0.35 < share < 0.65, (kind, share)


def test_a_case_of_expressions_is_seldom_thrown_away():
    """Cases Hypothesis generates against those the test sees: a rejected draw anywhere
    in the twelve expressions loses the whole case (32 rows and 12 expressions)."""
    generated = [0]

    def counted(case):
        generated[0] += 1
        return case

    cases = sample(expression_cases().map(counted), 30, 11)
    assert len(cases) == 30
    assert generated[0] <= 36, generated[0]
    focused_reads = [G.reads_a_column(e) for exprs, _, _ in cases for e in exprs]
    assert sum(focused_reads) / len(focused_reads) > 0.8


def test_half_the_arithmetic_is_between_integers_mostly_division():
    """int-division-real (7 / 2 read as 3.5) went unfound in two minutes of mixed fuzz
    when one arithmetic root in fifteen was an integer division."""
    integer = r"(?:i|gi|-?\d+)"
    shape = re.compile(rf"^\((?:(?:i|gi) ([-+*/%]) {integer}|{integer} ([-+*/%]) (?:i|gi))\)$")
    exprs = [e for xs in sample(st.lists(G.expressions("any", 1, "ARITH"), min_size=20,
                                        max_size=20), 20, 11) for e in xs]
    between = [m.group(1) or m.group(2) for e in exprs if (m := shape.match(e))]
    assert 0.4 < len(between) / len(exprs) < 0.75, len(between) / len(exprs)
    assert sum(op in "/%" for op in between) / len(between) > 0.45


def test_escaped_like_patterns_use_their_escape_character():
    # a pattern without its ESCAPE character checks nothing of ESCAPE (like-escape-ignored
    # took four minutes of mixed fuzz, and 2,580 checks of LIKE alone, to be noticed)
    drawn = [p for ps in sample(st.lists(G._escaped_patterns(), min_size=20, max_size=20),
                                20, 5) for p in ps]
    null = [p for p in drawn if p.endswith("ESCAPE NULL")]
    assert 0.1 < len(null) / len(drawn) < 0.4
    used = 0
    for p in drawn:
        m = re.fullmatch(r"'(.*)' ESCAPE '(.)'", p)
        if m:
            used += m.group(2) in m.group(1)
    assert used / (len(drawn) - len(null)) > 0.6


def test_a_like_is_an_escape_pattern_on_a_column_often():
    """ESCAPE is its own encoding path: two in seven LIKE forms, half of them on a text
    column (a constant operand is folded by SQLite and checks nothing). It was one in
    six, mostly on constants: a minute of mixed fuzz drew one."""
    likes = [e for xs in sample(st.lists(G.expressions("bool", 1, "LIKE"), min_size=20,
                                        max_size=20), 20, 7) for e in xs]
    escaped = [e for e in likes if " ESCAPE " in e]
    assert 0.18 < len(escaped) / len(likes) < 0.4
    on_column = [e for e in escaped if re.match(r"\((s|sn|sr|a|gt|gs) (NOT )?LIKE ", e)]
    assert len(on_column) / len(escaped) > 0.4


def test_most_date_modifiers_are_in_the_fragment():
    """A modifier outside the fragment makes the whole call unsupported, which checks
    nothing: at four in six literals, two in three date calls of a minute's run were.
    Now most modifiers are literals the encoding reads, half of them month or year
    steps (where SQLite normalizes past a month's end)."""
    from spotit.encodings.dates import parse_modifier

    mods = [m for ms in sample(st.lists(G.argument(lambda k: G.leaf(k), "modifier"),
                                        min_size=20, max_size=20), 40, 3) for m in ms]
    read = [m for m in mods if m.startswith("'") and parse_modifier(m[1:-1]) is not None]
    assert len(read) / len(mods) > 0.6
    months = [m for m in read if parse_modifier(m[1:-1])[1] in ("month", "year")]
    assert len(months) / len(read) > 0.4


def test_substr_starts_are_often_negative():
    """A negative start counts from the end: SQLite's edge case. Drawn from -4..12 with
    st.integers, the start was 0 in most SUBSTR calls (Hypothesis draws near 0), and
    substr-negative-start went unnoticed for two minutes of mixed fuzz."""
    calls = [e for xs in sample(st.lists(G.expressions("any", 1, "SUBSTR"), min_size=20,
                                        max_size=20), 15, 3) for e in xs]
    negative = [e for e in calls if re.match(r"SUBSTR\([^,]*, -\d+[,)]", e)]
    assert len(negative) / len(calls) > 0.15, calls[:20]


def test_a_query_table_has_two_rows_and_nulls_beside_values():
    """A query on pinned rows shows how NULLs group, sort and join only where a column
    holds a NULL beside a value: at least two rows, about two cells in five NULL (the
    window calls' rows had one row in four cases and MIN over a group holding both in
    7 queries of 2,000)."""
    from spotit.proofs.relations import query_cases

    tables = [rows for rows, _ in sample(query_cases(), 200, 11)]
    assert min(len(rows) for rows in tables) >= 2
    cells = [v for rows in tables for row in rows for v in row]
    assert 0.3 < sum(v is None for v in cells) / len(cells) < 0.55
    both = sum(any(row[c] is None for row in rows) and any(row[c] is not None for row in rows)
               for rows in tables for c in range(5))
    assert both / (5 * len(tables)) > 0.4



def test_a_text_cell_is_often_empty():
    """'' is the text a system may take for NULL (COALESCE, NULLIF, IFNULL). One edge
    text in thirty-three, it was three text cells of a hundred in the expression cases,
    and coalesce-empty-as-null went unfound for two minutes of fuzz on two seeds in four."""
    cells = [v for _, rows, _ in sample(expression_cases(), 40, 2) for row in rows
             for v in row if isinstance(v, str)]
    assert 0.08 < cells.count("") / len(cells) < 0.3
    assert len(set(cells)) > 200  # and the others still vary
