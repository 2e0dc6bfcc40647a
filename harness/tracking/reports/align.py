"""An alignment report as a tracker run of its own (tag ``harness.role=align``), beside the run(s)
whose columns were fitted (``harness.source_run``, ``harness.source_run_b``)."""

from __future__ import annotations

from pathlib import Path

from harness.align.report import AlignReport
from harness.tracking.base import RunRef, Tracker
from harness.tracking.reports.meta_eval import log_labelled_report

ROLE = "align"


def log_align(report: AlignReport, tracker: Tracker, experiment_name: str, folder: Path,
              params: dict[str, str]) -> RunRef | None:
    """Writes the report's files (beside what ``folder`` already holds, e.g. the metric config),
    then logs them with the report's metrics and ``params``."""
    return log_labelled_report(report, tracker, experiment_name, folder, params, ROLE, "align")
