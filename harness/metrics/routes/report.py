"""The per-route summary printed after a run or sweep: routing accuracy, quality and pass rates."""

from __future__ import annotations

import re
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
    from harness.console import escape, short_names, text_width

    short, _, keys = short_names(list(dict.fromkeys(row["run"] for row in rows)))
    table = Table(title=escape(f"{title}: per route"), box=box.SIMPLE_HEAD)
    columns = ("job", "run", "route", *COLUMNS)
    cells = [[escape(short.get(row["run"], row["run"]) if c == "run" else _cell(row.get(c), c)) for c in columns]
             for row in rows]
    for index, column in enumerate(columns):
        header = f"run: {', '.join(keys)}" if column == "run" and keys else column
        text = column in ("run", "route")
        # Numbers keep their full width; only names and headers fold.
        header = header.replace("_", " ") if not text else escape(header)
        widest = max(text_width(row[index]) for row in cells)
        table.add_column(header, overflow="fold", justify="left" if text else "right",
                         min_width=widest if column == "route" else None,
                         width=None if text else max(widest, *(min(len(w), 8) for w in header.split())))
    for row in cells:
        table.add_row(*row)
    (console or default_console()).print(table)


def _cell(value: Any, column: str) -> str:
    if value is None:
        return "-"
    if column in ("questions", "answered"):
        return str(int(value))
    if isinstance(value, float):
        return f"{value:.4f}"
    return str(value)
