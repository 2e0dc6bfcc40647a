"""Traces written on demand (``harness traces``): a run's or a sweep's questions that have no trace
yet, from the job folders' own records, into the runs that own them."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness.results.records import RunResult
from harness.tracking.base import Tracker
from harness.tracking.sweep import state as sweep


@dataclass
class TracedRun:
    """A run's name and id, and how many traces were written into it."""

    name: str
    run_id: str
    written: int


@dataclass
class TracesReport:
    runs: list[TracedRun] = field(default_factory=list)
    not_logged: list[str] = field(default_factory=list)  # jobs without a run (`harness sync` logs them)

    def lines(self) -> list[str]:
        lines = [f"{run.name} ({run.run_id}): {run.written} trace(s) written" for run in self.runs]
        total = sum(run.written for run in self.runs)
        lines.append(f"Wrote {total} trace(s) into {len(self.runs)} run(s)")
        if self.not_logged:
            lines.append(f"{len(self.not_logged)} job(s) not logged, no run to write into (harness sync logs "
                         f"them): {', '.join(self.not_logged)}")
        return lines


def runs_of(folder: Path) -> tuple[Path, list[dict[str, Any]]]:
    """The config file and the job summaries of a sweep's folder or of one run's folder."""
    folder = Path(folder)
    if (folder / "multirun.yaml").is_file():
        state = sweep.read_sweep(folder)
        if not state.get("sweep_id"):
            raise FileNotFoundError(f"{folder} is not a sweep folder (no {sweep.SWEEP_FILE})")
        return folder / "multirun.yaml", sweep.collect_job_summaries(folder, state["sweep_id"])
    summary = folder / sweep.JOB_SUMMARY
    config = folder / ".hydra" / "config.yaml"
    if summary.is_file() and config.is_file():
        return config, [json.loads(summary.read_text(encoding="utf-8"))]
    raise FileNotFoundError(f"{folder} is neither a sweep's folder (multirun.yaml) nor a run's folder "
                            f"({sweep.JOB_SUMMARY} and .hydra/config.yaml)")


class RunTraces:
    """Writes the traces runs lack through ``tracker`` (:meth:`Tracker.write_traces`)."""

    def __init__(self, tracker: Tracker) -> None:
        self.tracker = tracker

    def write(self, summaries: list[dict[str, Any]], which: str | list[str] | None) -> TracesReport:
        """``which``: None (the questions ``tracking.traces`` picks), ``"all"``, or question ids
        (an id no run has is an error naming it)."""
        report = TracesReport()
        jobs = []
        for summary in summaries:
            folder = Path(summary["output_dir"])
            if not (folder / "metrics.json").exists():
                continue  # a job that failed before it had results: nothing to trace
            if not summary.get("run_id"):
                report.not_logged.append(summary["name"])
                continue
            jobs.append((summary, RunResult.read(folder)))
        if isinstance(which, list):
            known = {row["question_id"] for _, result in jobs for row in result.rows}
            unknown = [qid for qid in which if qid not in known]
            if unknown:
                raise ValueError(f"no run here has question(s) {', '.join(unknown)}")
        for summary, result in jobs:
            ids = [row["question_id"] for row in result.rows] if which == "all" else which
            written = self.tracker.write_traces(summary["run_id"], result, summary["name"], ids)
            report.runs.append(TracedRun(summary["name"], summary["run_id"], written))
        return report
