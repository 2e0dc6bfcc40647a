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
    return log_labelled_report(report, tracker, experiment_name, folder, params, ROLE, "meta-eval")


def log_labelled_report(report, tracker: Tracker, experiment_name: str, folder: Path, params: dict[str, str],
                        role: str, command: str) -> RunRef | None:
    """A report on runs and a labels file (``meta-eval``, ``align``) as a run of role ``role``:
    its files written to ``folder`` first, then logged with its metrics, pointing back at the runs."""
    report.write(folder)
    tags = {f"harness.{role}.kind": report.kind, "harness.labels": str(report.labels.path),
            "harness.source_table": " ".join(str(r.path) for r in report.runs)}
    for key, run in zip(("harness.source_run", "harness.source_run_b"), report.runs):
        if run.run_id:
            tags[key] = run.run_id
    return tracker.log_report(ReportRun(
        name=f"{command}: {' vs '.join(r.name for r in report.runs)}", role=role, folder=folder, tags=tags,
        metrics=report.metrics(), params=params, experiment_id=report.runs[0].experiment_id,
        experiment_name=experiment_name))
