"""A meta-evaluation report as a tracker run of its own (tag ``harness.role=meta_eval``).

The run goes to the (first) evaluated run's experiment, or, for local run folders, to the
configured experiment, and points back at the evaluated run(s) with ``harness.source_run``
(and ``harness.source_run_b`` for run B of a pairwise comparison); those runs are left untouched.
"""

from __future__ import annotations

from pathlib import Path

from harness.metaeval.report import MetaEvalReport
from harness.tracking.base import ReportRun, RunRef, Tracker

ROLE = "meta_eval"


def log_meta_eval(report: MetaEvalReport, tracker: Tracker, experiment_name: str, folder: Path,
                  params: dict[str, str]) -> RunRef | None:
    """Writes the report's files to ``folder`` (so they survive a tracking failure), then logs
    them with the report's metrics and ``params``; returns the logged run."""
    report.write(folder)
    tags = {"harness.meta_eval.kind": report.kind, "harness.labels": str(report.labels.path),
            "harness.source_table": " ".join(str(r.path) for r in report.runs)}
    for key, run in zip(("harness.source_run", "harness.source_run_b"), report.runs):
        if run.run_id:
            tags[key] = run.run_id
    return tracker.log_report(ReportRun(
        name=f"meta-eval: {' vs '.join(r.name for r in report.runs)}", role=ROLE, folder=folder, tags=tags,
        metrics=report.metrics(), params=params, experiment_id=report.runs[0].experiment_id,
        experiment_name=experiment_name))
