"""``harness sync``: log what a sweep computed but could not record (its tracking server was down).

Every job leaves its results and a ``summary.json`` (with what its run needs: name, params, tags,
resolved config) in its folder whether or not logging worked; a job whose summary has no
``run_id`` was not logged. Syncing logs those jobs as children of the sweep's parent run (made
anew when the store does not have it, e.g. a different server) and, if the sweep's end was not
logged, the leaderboard and statistics files, then closes the parent. A job logged before gets the
question traces its run lacks (they are written after the run: a store lost meanwhile misses them).

A job that opened its run before the store went away (its id kept in the job's folder,
:func:`state.job_run`, or a run of the sweep the store holds as RUNNING for that folder) is
logged into that run, whatever its status, which ends FINISHED or FAILED as the job did: never a
second run for a job. Another run the store holds as RUNNING for a job that is over (a run opened
twice: its answer lost with the server) is closed as KILLED, saying which run holds the job.
"""

from __future__ import annotations

import logging
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness.config.secrets import RedactingFilter, redact
from harness.results.records import RunResult
from harness.tracking.sweep import state as sweep
from harness.log_filters import FILE_ONLY
from harness.tracking.base import StoreRefused, Tracker, Written
from harness.tracking.sweep.liveness import owner_alive
from harness.tracking.verdicts.champion import log_champion, read_champion
from harness.tracking.verdicts.front import FRONT_FILE, log_front, read_front
from harness.tracking.verdicts.leaderboard import Leaderboard
from harness.tracking.outcome import JobInfo, JobOutcome

log = logging.getLogger(__name__)

# Files the end of a sweep leaves in its folder and attaches to the parent run.
SWEEP_FILES = ("power_plan.txt", "stats.csv", "stats_verdicts.csv", "stats.png", "stats_not_computed.txt", FRONT_FILE)
OUTPUT_DIR_TAG = "harness.output_dir"
# What sync did with a job's run.
CREATED, COMPLETED, LOGGED_BEFORE = "created", "completed", "logged before"


@dataclass
class SyncedRun:
    """One job's run as ``harness sync`` left it.

    Attributes:
        action: ``created`` (the store had no run for the job), ``completed`` (the job's run, opened
            before the store went away, logged and ended now) or ``logged before`` (only the
            traces its run lacked).
        status: the status the run ended with; ``before``: the status it had (a completed run).
        written: the metrics, tables and traces written into it now.
    """

    name: str
    run_id: str
    action: str
    status: str
    written: Written = field(default_factory=Written)
    before: str | None = None

    def line(self) -> str:
        was = f", was {self.before}" if self.before and self.before != self.status else ""
        return f"{self.action} {self.name}: run {self.run_id} {self.status}{was}; {self.written}"


@dataclass
class SyncReport:
    parent_id: str | None
    parent_created: bool = False
    runs: list[SyncedRun] = field(default_factory=list)
    closed: list[str] = field(default_factory=list)  # one line per second run closed as KILLED
    sweep_end_logged: bool = False

    @property
    def logged(self) -> list[str]:
        """The jobs logged now (into a run created or completed)."""
        return [run.name for run in self.runs if run.action != LOGGED_BEFORE]

    @property
    def already_logged(self) -> list[str]:
        return [run.name for run in self.runs if run.action == LOGGED_BEFORE]

    def lines(self) -> list[str]:
        """The console report: a line per run, the runs closed, and a total line."""
        lines = [run.line() for run in self.runs] + self.closed
        counts = {action: sum(run.action == action for run in self.runs)
                  for action in (CREATED, COMPLETED, LOGGED_BEFORE)}
        total = sum((run.written for run in self.runs), Written())
        lines.append(f"Total: {len(self.runs)} run(s) under parent {self.parent_id} "
                     f"({', '.join(f'{n} {action}' for action, n in counts.items())}); {total} written"
                     + (f"; {len(self.closed)} second run(s) closed" if self.closed else ""))
        return lines


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
    # The sweep's runs the store holds as RUNNING, by job folder (none in a store that never saw it).
    running = {} if report.parent_created else _running_by_folder(tracker, state["sweep_id"], report.parent_id)
    for summary in summaries:
        folder = Path(summary["output_dir"])
        run = _sync_job(tracker, summary, folder, state["sweep_id"], report, running)
        failures = tracker.flush()
        if failures:
            raise RuntimeError(failures[-1])
        report.runs.append(run)
        report.closed.extend(_close_second_runs(tracker, summary, running.get(_key(folder), {})))
        if summary.pop("traces_error", None) is not None or run.action != LOGGED_BEFORE:
            sweep.write_job_summary(folder, summary)
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


def _sync_job(tracker: Tracker, summary: dict[str, Any], folder: Path, sweep_id: str, report: SyncReport,
              running: dict[str, dict[str, dict[str, str]]]) -> SyncedRun:
    """Logs one job's run, or the traces it lacks (written before this returns: no sweep runs in
    this process); what was done."""
    if summary.get("run_id"):  # its traces may be what the store missed: the ones its run lacks
        run_id = summary["run_id"]
        run = SyncedRun(summary["name"], run_id, LOGGED_BEFORE, tracker.run_status(run_id) or "")
        earlier = tracker.written(run_id)  # this tracker's, a sync before this one in this process
        result = _result(folder)
        if result is not None:
            tracker.log_traces(run_id, result, summary["name"])
    else:
        opened = None if report.parent_created else _opened_run(tracker, folder, sweep_id, running)
        before = tracker.run_status(opened) if opened else None
        earlier = tracker.written(opened or "")
        keep = None if report.parent_created else (
            lambda run_id: sweep.keep_job_run(folder, sweep_id, run_id))  # a second sync finds it
        run_id = tracker.log_job(job_outcome(summary), JobInfo(**summary["job_info"]), report.parent_id, opened,
                                 opened=keep)
        summary["run_id"] = run_id
        summary.pop("tracking_error", None)
        run = SyncedRun(summary["name"], run_id, COMPLETED if opened else CREATED,
                        tracker.run_status(run_id) or summary["status"], before=before)
    run.written = tracker.written(run_id) - earlier
    return run


def _key(folder: Path | str) -> str:
    return str(Path(folder).resolve())


def _running_by_folder(tracker: Tracker, sweep_id: str, parent_id: str) -> dict[str, dict[str, dict[str, str]]]:
    """The sweep's job runs the store holds as RUNNING, by their job's folder: folder -> run id -> tags."""
    found: dict[str, dict[str, dict[str, str]]] = {}
    for run_id, tags in tracker.running_runs(sweep_id).items():
        if run_id != parent_id and tags.get(OUTPUT_DIR_TAG):
            found.setdefault(_key(tags[OUTPUT_DIR_TAG]), {})[run_id] = tags
    return found


def _opened_run(tracker: Tracker, folder: Path, sweep_id: str,
                running: dict[str, dict[str, dict[str, str]]]) -> str | None:
    """The run the job opened before the store went away, if the store has it: the one its folder
    names (a race's configuration: its first round's), else one the store holds RUNNING for it."""
    for run_id in (sweep.round_run(folder, sweep_id), sweep.job_run(folder, sweep_id)):
        if run_id and tracker.run_status(run_id) is not None:
            return run_id
    return next(iter(running.get(_key(folder), {})), None)


def _close_second_runs(tracker: Tracker, summary: dict[str, Any], running: dict[str, dict[str, str]]) -> list[str]:
    """Closes as KILLED the job's other runs left RUNNING (their process over); a line for each."""
    lines = []
    for run_id, tags in running.items():
        if run_id == summary["run_id"] or owner_alive(tags):
            continue
        tracker.mark_killed([run_id], f"a second run of {summary['name']}, whose results are in run "
                                      f"{summary['run_id']}")
        lines.append(f"closed {summary['name']}: run {run_id} KILLED, was RUNNING (a second run of the job; "
                     f"its results are in run {summary['run_id']})")
    return lines


def log_summary(tracker: Tracker, summary: dict[str, Any], outcome: JobOutcome, info: JobInfo,
                parent_id: str | None, run_id: str | None, multirun: bool) -> None:
    """Logs a job into its run (opened already, or made now: its id kept in the job's folder first);
    its summary gets the run's id, or why tracking failed: the results stay on disk, the failure is
    reported, not hidden."""
    sweep_id = summary.get("sweep_id")
    keep = (lambda opened: sweep.keep_job_run(outcome.output_dir, sweep_id, opened)) if sweep_id else None
    try:
        summary["run_id"] = tracker.log_job(outcome, info, parent_id, run_id, opened=keep)
        summary.pop("tracking_error", None)
    except Exception as err:
        # One line on the console; the traceback in the job's log file.
        log.info("tracking failed for %s", info.name, exc_info=True, extra=FILE_ONLY)
        if multirun:
            log.warning("NOT LOGGED %s: %s; its results are in %s", info.name, err, outcome.output_dir)
        summary["tracking_error"] = str(err) if isinstance(err, StoreRefused) else repr(err)


def log_ended_job(tracker: Tracker, summary: dict[str, Any], outcome: JobOutcome, info: JobInfo,
                  parent_id: str | None, run_id: str | None, log_file: tuple[str, str] | None = None) -> None:
    """In the sweep's process: a job a harness launcher's worker ran, handed over with its answer
    (:mod:`~harness.tracking.sweep.handoff`), logged into its run as :func:`log_summary` logs it
    while the worker runs the next job; then its summary is written (the job is finished for a
    resume from then on; a sweep stopped before leaves it to run again, as one stopped before a
    job's summary is written). What is logged meanwhile (a failure's traceback) goes to the job's
    own log file too, as in its worker (``log_file``: its path and its lines' format)."""
    with _also_into(log_file):
        log_summary(tracker, summary, outcome, info, parent_id, run_id, multirun=True)
    sweep.write_job_summary(outcome.output_dir, redact(summary))


@contextmanager
def _also_into(log_file: tuple[str, str] | None):
    """The process's log records also written to the file of ``log_file`` (path, format) meanwhile:
    every level the root logger passes, redacted."""
    if log_file is None:
        yield
        return
    path, fmt = log_file
    handler = logging.FileHandler(path, encoding="utf-8")
    handler.setFormatter(logging.Formatter(fmt))
    handler.addFilter(RedactingFilter())
    root = logging.getLogger()
    root.addHandler(handler)
    try:
        yield
    finally:
        root.removeHandler(handler)
        handler.close()


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
