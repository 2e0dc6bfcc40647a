"""The end-of-sweep leaderboard: configurations x headline metrics."""

from __future__ import annotations

import csv
import io
import math
from dataclasses import dataclass
from typing import Any


@dataclass
class Leaderboard:
    """One row per job, best first by the first headline metric; failed jobs last."""

    columns: list[str]
    rows: list[dict[str, Any]]

    @classmethod
    def from_summaries(cls, summaries: list[dict[str, Any]], headline: list[str]) -> "Leaderboard":
        rows = []
        for summary in summaries:
            metrics = summary.get("metrics") or {}
            row = {"job": summary.get("job_num"), "run": summary.get("name"), "status": summary.get("status")}
            row.update({name: metrics.get(name) for name in headline})
            rows.append(row)
        first = headline[0] if headline else None

        def order(row: dict[str, Any]) -> tuple:
            value = row.get(first) if first else None
            missing = value is None or (isinstance(value, float) and math.isnan(value))
            return (row["status"] != "FINISHED", missing, -(value or 0.0))

        return cls(columns=["job", "run", "status", *headline], rows=sorted(rows, key=order))

    def to_csv(self) -> str:
        buffer = io.StringIO()
        writer = csv.DictWriter(buffer, fieldnames=self.columns)
        writer.writeheader()
        writer.writerows(self.rows)
        return buffer.getvalue()

    def to_markdown(self) -> str:
        lines = ["| " + " | ".join(self.columns) + " |", "|" + "---|" * len(self.columns)]
        lines += ["| " + " | ".join(_cell(row.get(c)) for c in self.columns) + " |" for row in self.rows]
        return "\n".join(lines) + "\n"

    def print(self, title: str) -> None:
        from rich.console import Console
        from rich.table import Table

        table = Table(title=title)
        for column in self.columns:
            if column == "run":
                table.add_column(column, overflow="fold", min_width=32)
            else:
                table.add_column(column, justify="left" if column == "status" else "right")
        for row in self.rows:
            table.add_row(*(_cell(row.get(c)) for c in self.columns))
        Console(width=max(120, 50 + 16 * len(self.columns))).print(table)


def _cell(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.4f}"
    return str(value)
