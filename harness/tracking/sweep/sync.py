"""``harness sync``: log what a sweep computed but could not record (its tracking server was down).

Every job leaves its results and a ``summary.json`` (with what its run needs: name, params, tags,
resolved config) in its folder whether or not logging worked; a job whose summary has no
``run_id`` was not logged. Syncing logs those jobs as children of the sweep's parent run (made
anew when the store does not have it, e.g. a different server) and, if the sweep's end was not
logged, the leaderboard and statistics files, then closes the parent. A job logged before gets the
question traces its run lacks (they are written after the run: a store lost meanwhile misses them).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness.results.records import RunResult
from harness.tracking.sweep import state as sweep
from harness.log_filters import FILE_ONLY
from harness.tracking.base import StoreRefused, Tracker
from harness.tracking.verdicts.champion import log_champion, read_champion
from harness.tracking.verdicts.front import FRONT_FILE, log_front, read_front
from harness.tracking.verdicts.leaderboard import Leaderboard
from harness.tracking.outcome import JobInfo, JobOutcome

log = logging.getLogger(__name__)

# Files the end of a sweep leaves in its folder and attaches to the parent run.
SWEEP_FILES = ("power_plan.txt", "stats.csv", "stats_verdicts.csv", "stats.png", "stats_not_computed.txt", FRONT_FILE)


@dataclass
class SyncReport:
    parent_id: str | None
    parent_created: bool = False
    logged: list[str] = field(default_factory=list)
    already_logged: list[str] = field(default_factory=list)
    sweep_end_logged: bool = False


def not_logged(summaries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [s for s in summaries if not s.get("run_id")]


def sync_sweep(sweep_dir: Path, tracker: Tracker, headline: list[str]) -> SyncReport:
    """Logs the sweep's unlogged jobs and, if missing, its end; returns what was done."""
    state = sweep.read_sweep(sweep_dir)
    if not state.get("sweep_id"):
        raise FileNotFoundError(f"{sweep_dir} is not a sweep folder (no {sweep.SWEEP_FILE})")
    summaries = sweep.collect_job_summaries(sweep_dir, state["sweep_id"])
    report = SyncReport(parent_id=state.get("parent_run_id"))
    if not report.parent_id or not tracker.has_run(report.parent_id):
        parent = state.get("parent") or {"name": f"sweep {sweep_dir.name}", "tags": {"harness.role": "sweep"}}
        report.parent_id = tracker.start_sweep(parent["name"], parent["tags"])
        report.parent_created = True
        state.update(parent_run_id=report.parent_id, sweep_end_logged=False)
        sweep.save_sweep(sweep_dir, state)
        for summary in summaries:  # runs in another store are not this parent's children
            summary.pop("run_id", None)
    for summary in summaries:
        if summary.get("run_id"):  # its traces may be what the store missed: the ones its run lacks
            report.already_logged.append(summary["name"])
            result = _result(Path(summary["output_dir"]))
            if result is not None:
                tracker.log_traces(summary["run_id"], result, summary["name"])
        else:
            # a race's configuration: into the run its first round opened (in this store)
            opened = None if report.parent_created else sweep.round_run(Path(summary["output_dir"]), state["sweep_id"])
            summary["run_id"] = tracker.log_job(job_outcome(summary), JobInfo(**summary["job_info"]), report.parent_id,
                                                opened)
            summary.pop("tracking_error", None)
            report.logged.append(summary["name"])
        failures = tracker.flush()
        if failures:
            raise RuntimeError(failures[-1])
        if summary.pop("traces_error", None) is not None or summary["name"] in report.logged:
            sweep.write_job_summary(Path(summary["output_dir"]), summary)
    if not state.get("sweep_end_logged"):
        tracker.log_files(report.parent_id, [sweep_dir / name for name in SWEEP_FILES if (sweep_dir / name).exists()])
        log_champion(read_champion(sweep_dir), summaries, tracker, report.parent_id)
        log_front(read_front(sweep_dir), summaries, tracker, report.parent_id)
        failed = sum(s["status"] != "FINISHED" for s in summaries)
        tracker.end_sweep(report.parent_id, Leaderboard.from_summaries(summaries, headline).texts(),
                          jobs=len(summaries), failed=failed)
        mark_sweep_end_logged(sweep_dir)
        report.sweep_end_logged = True
    return report


def log_summary(tracker: Tracker, summary: dict[str, Any], outcome: JobOutcome, info: JobInfo,
                parent_id: str | None, run_id: str | None, multirun: bool) -> None:
    """Logs a job into its run (opened already, or made now); its summary gets the run's id, or
    why tracking failed: the results stay on disk, the failure is reported, not hidden."""
    try:
        summary["run_id"] = tracker.log_job(outcome, info, parent_id, run_id)
        summary.pop("tracking_error", None)
    except Exception as err:
        # One line on the console; the traceback in the job's log file.
        log.info("tracking failed for %s", info.name, exc_info=True, extra=FILE_ONLY)
        if multirun:
            log.warning("NOT LOGGED %s: %s; its results are in %s", info.name, err, outcome.output_dir)
        summary["tracking_error"] = str(err) if isinstance(err, StoreRefused) else repr(err)


def mark_sweep_end_logged(sweep_dir: Path) -> None:
    state = sweep.read_sweep(sweep_dir)
    state["sweep_end_logged"] = True
    sweep.save_sweep(sweep_dir, state)


def _result(folder: Path) -> RunResult | None:
    """The job's result; None for a job that failed before it had one."""
    return RunResult.read(folder) if (folder / "metrics.json").exists() else None


def job_outcome(summary: dict[str, Any]) -> JobOutcome:
    """The outcome a job's folder and summary hold, as its run is logged from them."""
    folder = Path(summary["output_dir"])
    if summary["status"] == "FINISHED":
        return JobOutcome(status="FINISHED", output_dir=folder, result=RunResult.read(folder))
    traceback = folder / "traceback.txt"
    return JobOutcome(status=summary["status"], output_dir=folder, message=summary.get("error"),
                      error=traceback.read_text() if traceback.exists() else summary.get("error"))
