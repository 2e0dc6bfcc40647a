"""The per-route summary printed after a run or sweep: routing accuracy, quality and pass rates."""

from __future__ import annotations

import re
import textwrap
from typing import Any

# The route suite's name in ``conf/metrics`` (its metrics are ``routes/...``).
SUITE = "routes"
COLUMNS = ("questions", "answered", "routing_accuracy", "quality", "pass_rate", "success_rate", "two_tier")
_PER_ROUTE = re.compile(rf"^{SUITE}/by_route/(?P<route>.+)/questions$")


def route_rows(summaries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One row per (job, route), plus an ``all`` row per job; jobs without route metrics are left out."""
    rows = []
    for summary in summaries:
        metrics = summary.get("metrics") or {}
        routes = [m["route"] for key in metrics if (m := _PER_ROUTE.match(key))]
        if not routes:
            continue
        base = {"job": summary.get("job_num"), "run": summary.get("name")}
        for route in routes:
            rows.append({**base, "route": route,
                         **{c: metrics.get(f"{SUITE}/by_route/{route}/{c}") for c in COLUMNS}})
        rows.append({**base, "route": "all", "questions": sum(r["questions"] or 0 for r in rows[-len(routes):]),
                     "answered": sum(r["answered"] or 0 for r in rows[-len(routes):]),
                     **{c: metrics.get(f"{SUITE}/{c}") for c in COLUMNS[2:]}})
    return rows


def print_route_summary(summaries: list[dict[str, Any]], title: str, console=None) -> None:
    """Prints the per-route table (nothing when no job has per-route metrics)."""
    rows = route_rows(summaries)
    if not rows:
        return
    from rich import box
    from rich.table import Table

    from harness.console import console as default_console
    from harness.console import COLUMN_BORDER as _BORDER
    from harness.console import HEADER_WIDTH as _HEADER_WIDTH
    from harness.console import RUN_WIDTH as _RUN_WIDTH
    from harness.console import column_groups, escape, short_names, text_width

    console = console or default_console()
    short, _, keys = short_names(list(dict.fromkeys(row["run"] for row in rows)))
    fixed, metrics = ("job", "run", "route"), list(COLUMNS)
    cells = {c: [short.get(row["run"], row["run"]) if c == "run" else _cell(row.get(c), c) for row in rows]
             for c in (*fixed, *metrics)}
    headers = {c: c.replace("_", " ") for c in metrics} | {"job": "job", "route": "route",
                                                            "run": f"run: {', '.join(keys)}" if keys else "run"}
    # Numbers keep their full width and names fold within a bound; a table too wide for the console
    # becomes several, each repeating job, run and route (never dropping them).
    widths = {c: max(max(map(text_width, cells[c])), min(text_width(headers[c]), _HEADER_WIDTH) if c in metrics
                     else 3) for c in cells}
    widths["run"] = min(widths["run"], _RUN_WIDTH)
    groups = column_groups(1 + sum(widths[c] + _BORDER for c in fixed), [widths[c] + _BORDER for c in metrics],
                           console.width)
    for part, group in enumerate(groups, 1):
        label = f"{title}: per route" + ("" if len(groups) == 1 else f" ({part}/{len(groups)})")
        table = Table(title=escape(label), box=box.SIMPLE_HEAD)
        chosen = [*fixed, *(metrics[i] for i in group)]
        for column in chosen:
            text = column in ("run", "route")
            table.add_column(escape(headers[column]), width=widths[column], overflow="fold",
                             justify="left" if text else "right")
        for index in range(len(rows)):
            table.add_row(*(escape(cells[c][index]) for c in chosen))
        console.print(table)


def _cell(value: Any, column: str) -> str:
    if value is None:
        return "-"
    if column in ("questions", "answered"):
        return str(int(value))
    if isinstance(value, float):
        return f"{value:.4f}"
    return str(value)


# The figures of the pivoted (brief) table, per route, and their column labels.
BRIEF_COLUMNS = {"quality": "qual", "pass_rate": "pass"}


def print_route_pivot(summaries: list[dict[str, Any]], title: str, width: int | None = None) -> None:
    """The per-route figures pivoted, one row per job: each route's quality and pass rate side by
    side (then routing accuracy over all), its question counts in the title, a legend below."""
    from harness.console import console, plain_table, short_names
    from harness.metrics.units import legend_line

    rows = route_rows(summaries)
    if not rows:
        return
    width = width or console().width
    routes = list(dict.fromkeys(row["route"] for row in rows))
    jobs = list(dict.fromkeys((row["job"], row["run"]) for row in rows))
    short, _, keys = short_names([run for _, run in jobs])
    by = {(row["job"], row["route"]): row for row in rows}
    headers = ["job", f"run: {', '.join(keys)}" if keys else "run",
               *(label for _ in routes for label in BRIEF_COLUMNS.values()), "route_acc"]
    above = ["", "", *(label for route in routes for label in (route, *[""] * (len(BRIEF_COLUMNS) - 1))), ""]
    table = [[str(job), short.get(run, run),
              *(_cell(by.get((job, route), {}).get(column), column) for route in routes for column in BRIEF_COLUMNS),
              _cell(by.get((job, "all"), {}).get("routing_accuracy"), "routing_accuracy")] for job, run in jobs]
    first = rows[0]["job"]
    counts = ", ".join(f"{route} {int(by[(first, route)]['questions'] or 0)}/{int(by[(first, route)]['answered'] or 0)}"
                       for route in routes if (first, route) in by)
    # the title wraps (a run's name can be wider than the console); the table's rows are cut to fit
    lines = [*textwrap.wrap(f"{title}: per route (questions/answered: {counts})", width),
             *plain_table(headers, table, [True, False, *[True] * (len(headers) - 2)], width, shrink=1, above=above),
             *(legend_line(f"{SUITE}/{column}", label) for column, label in BRIEF_COLUMNS.items()),
             legend_line(f"{SUITE}/routing_accuracy", "route_acc")]
    print("\n".join(line[:width] for line in lines))
