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


def print_route_summary(summaries: list[dict[str, Any]], title: str) -> None:
    """Prints the per-route table (nothing when no job has per-route metrics)."""
    rows = route_rows(summaries)
    if not rows:
        return
    from rich.console import Console
    from rich.table import Table

    table = Table(title=f"{title}: per route")
    for column in ("job", "run", "route", *COLUMNS):
        table.add_column(column, overflow="fold", min_width=24 if column == "run" else None,
                         justify="left" if column in ("run", "route") else "right")
    for row in rows:
        table.add_row(*(_cell(row.get(c), c) for c in ("job", "run", "route", *COLUMNS)))
    Console(width=160).print(table)


def _cell(value: Any, column: str) -> str:
    if value is None:
        return "-"
    if column in ("questions", "answered"):
        return str(int(value))
    if isinstance(value, float):
        return f"{value:.4f}"
    return str(value)
