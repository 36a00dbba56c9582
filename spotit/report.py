"""Human-readable output of a check: verdict, counterexample tables, both results,
and a SQLite script that rebuilds the counterexample database."""

from __future__ import annotations

from spotit.ir.render import sql_literal
from spotit.schema import Schema
from spotit.verdict import CheckResult, ConstrainedVerdict, Verdict


def format_table(columns: list[str], rows: list, *, indent: str = "  ") -> str:
    """A small boxed text table; NULL shows as NULL, text is quoted."""
    cells = [[_cell(v) for v in r] for r in rows]
    widths = [len(c) for c in columns]
    for r in cells:
        widths = [max(w, len(c)) for w, c in zip(widths, r, strict=False)]
    line = indent + "+" + "+".join("-" * (w + 2) for w in widths) + "+"
    head = indent + "|" + "|".join(f" {c:<{w}} " for c, w in zip(columns, widths, strict=True))
    head += "|"
    body = [indent + "|" + "|".join(f" {c:<{w}} " for c, w in zip(r, widths, strict=False)) + "|"
            for r in cells]
    if not cells:
        return "\n".join([line, head, line, indent + "  (no rows)"])
    return "\n".join([line, head, line, *body, line])


def _cell(v) -> str:
    if v is None:
        return "NULL"
    if isinstance(v, str):
        return "'" + v.replace("'", "''") + "'"
    return repr(v) if isinstance(v, float) else str(v)


def _result_table(rows: list[tuple] | None, columns: list[str] | None) -> str:
    if rows is None:
        return "  (not run)"
    width = max((len(r) for r in rows), default=len(columns or ()) or 1)
    names = list(columns or ())[:width]
    names += [f"column{i + 1}" for i in range(len(names), width)]
    return format_table(names, rows)


def sql_script(schema: Schema, rows: dict[str, list[tuple]]) -> str:
    """CREATE TABLE statements and INSERTs that rebuild the database in SQLite."""
    out = [schema.ddl.strip()]
    for table, trows in rows.items():
        t = schema.require_table(table)
        for r in trows:
            cols = ", ".join('"' + c.replace('"', '""') + '"' for c in t.row_columns(len(r)))
            vals = ", ".join(sql_literal(v) for v in r)
            out.append(f'INSERT INTO "{t.name}" ({cols}) VALUES ({vals});')
    return "\n".join(out) + "\n"


DATA_MEANING = {
    "declared": "declared (each column holds values of its declared type; "
                "--data sqlite assumes only what SQLite enforces)",
    "sqlite": "sqlite (any value SQLite stores in each column)",
    "realistic": "realistic (declared types plus the --constraints, assumed to hold)",
}


def format_result(res: CheckResult, schema: Schema | None = None, *, gold: str = "",
                  pred: str = "") -> str:
    verdict = res.verdict.value
    if res.vacuous:
        who = "both queries return" if len(res.vacuous) == 2 else f"the {res.vacuous[0]} " \
            "query returns"
        verdict += f" (vacuous: {who} no rows within the bound)"
    head = (f"verdict: {verdict}  (bound {res.bound}, {res.solver}, "
            f"{res.semantics} semantics, {res.seconds:.2f} s)")
    lines = [head, "data: " + DATA_MEANING.get(res.data, res.data)]
    if res.reason:
        lines.append(f"reason: {res.reason}")
    lines += [f"note: {n}" for n in res.notes]
    if res.database_check is not None:
        broken = res.database_check.get("breaches") or []
        lines.append(f"database: {len(broken)} of {res.database_check.get('checked', 0)} "
                     "declared constraints broken by its data"
                     + (" (not assumed): " + "; ".join(b["description"] for b in broken)
                        if broken else ""))
    lines += format_assumed(res)
    lines += format_explanation(res)
    if res.approximations and res.verdict in (Verdict.SPURIOUS, Verdict.NOT_EQUIVALENT):
        lines.append("over-approximated: " + ", ".join(res.approximations))
    if res.verdict is Verdict.NOT_EQUIVALENT and res.counterexample is not None:
        lines.append("")
        lines.append(f"counterexample database (k = {res.cex_bound}):")
        for table, rows in res.counterexample.items():
            cols = (res.counterexample_columns or {}).get(table) or (
                list(rows[0].keys()) if rows else [])
            shown = _shown_columns(cols, (res.counterexample_read or {}).get(table))
            left_out = len(cols) - len(shown)
            note = (f" ({left_out} column{'s' if left_out != 1 else ''} the queries do not "
                    f"read left out: see the SQL script or --json)" if left_out else "")
            lines.append(f"  table {table}:{note}")
            lines.append(format_table(shown, [[r.get(c) for c in shown] for r in rows],
                                      indent="    "))
        lines.append("")
        lines.append(f"gold result ({_count(res.gold_result)}):")
        lines.append(_result_table(res.gold_result, res.gold_columns))
        if res.pred_result is None:  # a prediction shown never to stop (the reason says why)
            lines.append("predicted result: none, the prediction never stops on this database")
        else:
            lines.append(f"predicted result ({_count(res.pred_result)}):")
            lines.append(_result_table(res.pred_result, res.pred_columns))
        if schema is not None and res.cex_rows is not None:
            lines.append("")
            lines.append("-- SQLite script that rebuilds it:")
            lines.append(sql_script(schema, res.cex_rows).rstrip())
    if res.verdict is Verdict.SPURIOUS and res.spurious:
        s = res.spurious[-1]
        lines.append(f"unconfirmed candidate (k = {s['k']}): {s['note']}")
    if res.constrained is not None:
        lines += ["", *format_constrained(res.constrained)]
    return "\n".join(lines)


def format_assumed(res: CheckResult) -> list[str]:
    """``assumed: ...`` (spotit.assumptions): the foreign keys a verdict relied on."""
    lines = []
    if res.assumed is not None:
        if not res.assumed:
            lines.append("assumed: nothing SQLite does not enforce")
        for a in res.assumed:
            need = {True: "the proof needs it: without it, a counterexample",
                    False: "the proof holds without it"}.get(a.get("needed"))
            if need is None:
                need = ("the counterexample satisfies it"
                        if res.verdict is Verdict.NOT_EQUIVALENT else
                        "not decided whether the proof needs it")
            lines.append(f"assumed: foreign key {a['child']} -> {a['parent']} ({need})")
    for a in res.not_assumed:
        lines.append(f"not assumed: foreign key {a['child']} -> {a['parent']} ({a['why']})")
    return lines


def format_explanation(res: CheckResult) -> list[str]:
    """``needs: ...`` / ``does not need: ...`` lines (spotit.explain)."""
    needed = [e["detail"] for e in res.explanation if e["needed"] is True]
    free = [e["detail"] for e in res.explanation if e["needed"] is False]
    unknown = [e["detail"] + (f" ({e['why']})" if e.get("feature") == "inexact_division"
                              and e.get("why") else "")
               for e in res.explanation if e["needed"] is None]
    lines = []
    if needed:
        lines.append(f"needs: {'; '.join(needed)} (no difference without "
                     f"{'it' if len(needed) == 1 else 'each'} within k = {res.bound})")
    if free:
        lines.append(f"does not need: {'; '.join(free)} (a counterexample without "
                     f"{'it' if len(free) == 1 else 'each'} exists)")
    if unknown:
        lines.append(f"not decided whether it needs: {'; '.join(unknown)}")
    return lines


def _shown_columns(columns: list[str], read: list[str] | None) -> list[str]:
    """The columns worth a person's attention: those the queries read (all of them when
    that is unknown, or when nothing is read: a row's presence is then what matters)."""
    if not read:
        return columns
    wanted = {c.lower() for c in read}
    return [c for c in columns if c.lower() in wanted]


def format_constrained(c: ConstrainedVerdict) -> list[str]:
    """The lines saying whether the difference survives the assumed constraints."""
    if c.verdict is Verdict.EQUIVALENT and c.violated:
        head = f"under constraints: {c.reason}"
    elif c.verdict is Verdict.NOT_EQUIVALENT:
        head = "under constraints: not_equivalent (a counterexample that satisfies them)"
    else:
        head = f"under constraints: {c.verdict.value} ({c.reason})"
    lines = [head]
    if c.verdict is Verdict.NOT_EQUIVALENT and c.violated:
        lines.append("  the first counterexample violated: " + ", ".join(c.violated))
    if c.verdict is Verdict.NOT_EQUIVALENT and c.counterexample and c.violated:
        lines.append("  counterexample under constraints:")
        for table, rows in c.counterexample.items():
            cols = list(rows[0].keys()) if rows else []
            lines.append(f"    table {table}:")
            lines.append(format_table(cols, [list(r.values()) for r in rows], indent="      "))
    for s in c.skipped:
        lines.append(f"  skipped: {s}")
    return lines


def _count(rows) -> str:
    if rows is None:
        return "not run"
    return f"{len(rows)} row{'s' if len(rows) != 1 else ''}"
