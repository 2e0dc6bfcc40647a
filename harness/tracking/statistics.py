"""The sweep's statistics at the edge: power planning before it, paired tests after it."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

from harness.stats.report import SweepStatistics, plot_report, print_report
from harness.tracking.base import Tracker

log = logging.getLogger(__name__)


def plan_sweep(stats: SweepStatistics, n_questions: int, sweep_dir: Path, tracker: Tracker,
               parent_id: str | None) -> None:
    """Prints what the dataset's size can detect, before any job spends time."""
    text = stats.plan(n_questions)
    print(text)
    path = sweep_dir / "power_plan.txt"
    path.write_text(text + "\n")
    tracker.log_files(parent_id, [path])


def report_sweep_statistics(stats: SweepStatistics, summaries: list[dict[str, Any]], sweep_dir: Path,
                            tracker: Tracker, parent_id: str | None) -> None:
    """Compares the finished runs with the champion; logs the table, verdicts and plot to the
    parent and each challenger's figures to its own run. Bad input is reported, never fatal."""
    finished = [s for s in summaries if s["status"] == "FINISHED"]
    tables = {s["name"]: read_table(Path(s["output_dir"]) / "per_question.jsonl") for s in finished}
    try:
        report = stats.compare(tables)
    except ValueError as err:  # fewer than two runs, a missing metric, misaligned questions
        message = f"statistics not computed: {err}"
        print(message)
        path = sweep_dir / "stats_not_computed.txt"
        path.write_text(message + "\n")
        tracker.log_files(parent_id, [path])
        return
    print_report(report)
    files = [sweep_dir / "stats.csv", sweep_dir / "stats_verdicts.csv"]
    files[0].write_text(report.table_csv)
    files[1].write_text(report.verdicts_csv)
    try:
        files.append(plot_report(report, sweep_dir / "stats.png"))
    except Exception:  # a plot is a convenience; the numbers above are already saved
        log.exception("could not draw the statistics plot")
    tracker.log_files(parent_id, files)
    for summary in finished:
        metrics = report.run_metrics.get(summary["name"], {})
        if summary["name"] == report.champion:
            metrics = {"stats/is_champion": 1.0}
        tracker.log_metrics(summary.get("run_id"), metrics)
    print(f"Statistics: {files[0]}")


def read_table(path: Path) -> list[dict[str, Any]]:
    with path.open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]
