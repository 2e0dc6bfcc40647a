"""The end-of-sweep leaderboard: configurations x headline metrics."""

from __future__ import annotations

import csv
import io
import math
from dataclasses import dataclass, field
from typing import Any

from harness.failures import failed_questions, failure_line
from harness.tracking.verdicts.selfcheck_flags import MARK, flagged

# Columns that are not metrics: the job, its run, its status and its failed questions.
FIXED = ("job", "run", "status", "failed")


@dataclass
class Leaderboard:
    """One row per job, best first by the first headline metric; failed jobs last. When a job's
    questions failed (its app's or generator's calls), a ``failed`` column says how many, and
    ``reasons`` (printed under the table) why."""

    columns: list[str]
    rows: list[dict[str, Any]]
    reasons: list[str] = field(default_factory=list)

    @classmethod
    def from_summaries(cls, summaries: list[dict[str, Any]], headline: list[str]) -> "Leaderboard":
        """Columns: the headline metrics that some run has, in the headline's order (all of them
        when no run has any), so a predictions-only sweep shows its answer metrics."""
        present = [name for name in headline if any(_has(s.get("metrics") or {}, name) for s in summaries)]
        headline = present or headline
        rows = []
        for summary in summaries:
            metrics = summary.get("metrics") or {}
            row = {"job": summary.get("job_num"), "run": summary.get("name"), "status": summary.get("status")}
            failed = failed_questions(summary.get("failures"))
            row["failed"] = f"{failed[1]}/{failed[2]} ({failed[1] / max(failed[2], 1):.0%})" if failed else "0"
            row.update({name: metrics.get(name) for name in headline})
            rows.append(row)
        first = headline[0] if headline else None

        def order(row: dict[str, Any]) -> tuple:
            value = row.get(first) if first else None
            missing = value is None or (isinstance(value, float) and math.isnan(value))
            return (row["status"] != "FINISHED", missing, -(value or 0.0))

        # A judge that failed its self-check marks its columns: `judge/answer_score (!)`.
        marked = {name: name + MARK for name in headline if flagged(name, summaries)}
        rows = [{marked.get(key, key): value for key, value in row.items()} for row in sorted(rows, key=order)]
        reasons = [f"{summary.get('name')}: {line}" for summary in summaries
                   for line in [failure_line(summary.get("failures"))] if line]
        failed = ["failed"] if reasons else []
        if not reasons:
            for row in rows:
                del row["failed"]
        return cls(columns=["job", "run", "status", *failed, *(marked.get(name, name) for name in headline)],
                   rows=rows, reasons=reasons)

    def to_csv(self) -> str:
        buffer = io.StringIO()
        writer = csv.DictWriter(buffer, fieldnames=self.columns)
        writer.writeheader()
        writer.writerows(self.rows)
        return buffer.getvalue()

    def to_markdown(self) -> str:
        lines = ["| " + " | ".join(self.columns) + " |", "|" + "---|" * len(self.columns)]
        lines += ["| " + " | ".join(_cell(row.get(c)) for c in self.columns) + " |" for row in self.rows]
        lines += ["", "Failed questions:", *(f"- {reason}" for reason in self.reasons)] if self.reasons else []
        return "\n".join(lines) + "\n"

    def texts(self) -> dict[str, str]:
        """The files a sweep's parent run holds: file name -> content."""
        return {"leaderboard.csv": self.to_csv(), "leaderboard.md": self.to_markdown()}

    def print(self, title: str, console=None) -> None:
        """The table on the console (its width; 120 in a log), run names shortened to what differs
        between the jobs (the full names stay in the CSV and MLflow). Numbers are never cut: metric
        columns that do not fit go to a second table that repeats the job and run columns."""
        from rich import box
        from rich.table import Table

        from harness.console import COLUMN_BORDER as _BORDER
        from harness.console import RUN_WIDTH as _RUN_WIDTH
        from harness.console import column_groups, escape, metric_header, short_names, text_width
        from harness.console import console as default_console

        console = console or default_console()
        short, common, keys = short_names([row["run"] for row in self.rows])
        if common:
            title = f"{title}, all with {','.join(common)}"
        # The status column only when some job failed.
        fixed_columns = [c for c in self.columns if c in ("job", "run", "failed")
                         or (c == "status" and any(row.get(c) != "FINISHED" for row in self.rows))]
        metrics = [c for c in self.columns if c not in FIXED]
        cells = {c: [_cell(row.get(c)) for row in self.rows] for c in self.columns}
        cells["run"] = [short.get(row["run"], row["run"]) for row in self.rows]
        headers = {c: c if c in FIXED else metric_header(c) for c in self.columns}
        headers["run"] = f"run: {', '.join(keys)}" if keys else "run"
        # A column's width: its widest cell or its header's widest line, whole (a header never breaks mid-word).
        widths = {c: max(max(map(text_width, cells[c]), default=1), text_width(headers[c])) for c in self.columns}
        widths["run"] = min(widths["run"], _RUN_WIDTH)
        groups = column_groups(1 + sum(widths[c] + _BORDER for c in fixed_columns),
                               [widths[c] + _BORDER for c in metrics], console.width)
        for part, group in enumerate(groups, 1):
            label = title if len(groups) == 1 else f"{title} ({part}/{len(groups)})"
            table = Table(title=escape(label), box=box.SIMPLE_HEAD)
            chosen = fixed_columns + [metrics[i] for i in group]
            for column in chosen:
                right = column not in ("run", "status")
                table.add_column(escape(headers[column]), width=widths[column], overflow="fold",
                                 justify="right" if right else "left")
            for index in range(len(self.rows)):
                table.add_row(*(escape(cells[c][index]) for c in chosen))
            console.print(table)
        for reason in self.reasons:
            console.print(escape(f"failed questions of {reason}"))


    def print_brief(self, title: str, width: int | None = None) -> None:
        """The table as plain text that fits ``width`` (the console's): each metric under its short
        label (``harness/metrics/units.yaml``), then one legend line per label with its metric and unit."""
        from harness.console import console, plain_table, short_names
        from harness.metrics.units import legend_line, short_labels

        width = width or console().width
        short, common, keys = short_names([row["run"] for row in self.rows])
        fixed = [c for c in self.columns if c in ("job", "run", "failed")
                 or (c == "status" and any(row.get(c) != "FINISHED" for row in self.rows))]
        metrics = [c for c in self.columns if c not in FIXED]
        names = {c: c.removesuffix(MARK) for c in metrics}
        found = short_labels_or_names([names[c] for c in metrics], short_labels)
        labels = {c: found[names[c]] + ("(!)" if c != names[c] else "") for c in metrics}
        headers = [f"run: {', '.join(keys)}" if c == "run" and keys else c for c in fixed] + [labels[c] for c in metrics]
        formats = {c: _column_format([row.get(c) for row in self.rows]) for c in metrics}
        rows = [[short.get(row["run"], row["run"]) if c == "run" else _cell(row.get(c)) for c in fixed]
                + [_cell(row.get(c), formats[c]) for c in metrics] for row in self.rows]
        lines = [title + (f", all with {','.join(common)}" if common else "")]
        lines += plain_table(headers, rows, [c == "job" for c in fixed] + [True] * len(metrics), width,
                             shrink=fixed.index("run") if "run" in fixed else None)
        lines += [legend_line_or_name(names[c], labels[c], legend_line) for c in metrics]
        lines += [f"failed questions of {reason}" for reason in self.reasons]
        print("\n".join(line[:width] for line in lines))


def short_labels_or_names(names: list[str], short_labels) -> dict[str, str]:
    """``short_labels(names)``; a metric the unit registry lacks keeps its full name."""
    try:
        return short_labels(names)
    except KeyError:
        return {name: name for name in names}


def legend_line_or_name(name: str, label: str, legend_line) -> str:
    try:
        return legend_line(name, label)
    except KeyError:
        return f"{label} = {name} (unit not declared in harness/metrics/units.yaml)"


def _has(metrics: dict[str, Any], name: str) -> bool:
    value = metrics.get(name)
    return value is not None and not (isinstance(value, float) and math.isnan(value))


def _column_format(values: list[Any]) -> str:
    """Decimals for a column: 4 below 10, 2 below 1000, else none (one column, one precision)."""
    largest = max((abs(v) for v in values if isinstance(v, (int, float)) and math.isfinite(v)), default=0.0)
    return ".4f" if largest < 10 else ".2f" if largest < 1000 else ".0f"


def _cell(value: Any, spec: str = ".4f") -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return format(value, spec)
    return str(value)
