"""A human-evaluation report as a tracker run of its own (tag ``harness.role=human_eval``).

The run goes to the evaluated run's experiment (or, for a local run folder, to the configured
experiment) and points back at the evaluated run with ``harness.source_run``; the evaluated run
itself is left untouched.
"""

from __future__ import annotations

from pathlib import Path

from harness.human.report import HumanEvalReport
from harness.tracking.base import ReportRun, RunRef, Tracker

ROLE = "human_eval"


def log_human_eval(report: HumanEvalReport, tracker: Tracker, experiment_name: str, folder: Path,
                   params: dict[str, str]) -> RunRef | None:
    """Writes the report's files to ``folder`` (so they survive a tracking failure), then logs
    them with the report's metrics and ``params``; returns the logged run."""
    report.write(folder)
    tags = {"harness.source_table": str(report.run.path),
            "harness.annotators": " ".join(report.annotations.annotators),
            "harness.sheets": " ".join(str(p) for p in report.sheets)}
    if report.run.run_id:
        tags["harness.source_run"] = report.run.run_id
    return tracker.log_report(ReportRun(
        name=f"human eval: {report.run.name}", role=ROLE, folder=folder, tags=tags, metrics=report.metrics(),
        params=params, experiment_id=report.run.experiment_id, experiment_name=experiment_name))
