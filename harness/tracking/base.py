"""The tracker interface; trackers are chosen with the ``tracking`` config group.

One seam for everything that writes or reads runs: the sweep callback (sweeps, jobs, their
statistics) and the subcommands (``compare``, ``annotate``, ``meta-eval`` and later ones), which
find runs, fetch their per-question tables and log their reports as runs of their own.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from harness.metaeval.labels import FeedbackLabels
from harness.tracking.outcome import JobInfo, JobOutcome


class StoreRefused(RuntimeError):
    """A tracker's store did not take a write (read-only, full, refusing it): the message names the
    store and the reason in one line."""


@dataclass(frozen=True)
class RunRef:
    """A recorded run, as a tracker names it."""

    run_id: str
    name: str
    experiment_id: str | None = None
    tags: dict[str, str] = field(default_factory=dict)
    parent_id: str | None = None  # the sweep's parent run, for a job of a sweep


@dataclass
class Written:
    """What a tracker wrote into one run: metrics, tables (the per-question table) and question traces."""

    metrics: int = 0
    tables: int = 0
    traces: int = 0

    def __add__(self, other: "Written") -> "Written":
        return Written(self.metrics + other.metrics, self.tables + other.tables, self.traces + other.traces)

    def __sub__(self, other: "Written") -> "Written":
        return Written(self.metrics - other.metrics, self.tables - other.tables, self.traces - other.traces)

    def __str__(self) -> str:
        def count(n: int, what: str) -> str:
            return f"{n} {what}" if n == 1 else f"{n} {what}s"

        return f"{count(self.metrics, 'metric')}, {count(self.tables, 'table')}, {count(self.traces, 'trace')}"


@dataclass
class ReportRun:
    """An analysis logged as a run of its own beside the runs it read (tag ``harness.role``).

    Attributes:
        name: the run's name.
        role: ``comparison``, ``human_eval``, ``meta_eval``...
        folder: files logged as the run's artifacts (written before logging, so they survive a
            tracking failure).
        tags: extra tags (e.g. ``harness.source_run``).
        metrics, params: logged as they are (metric names made tracker-safe).
        experiment_id: the experiment to log into (that of the run it reports on); None: the
            experiment named ``experiment_name``, else the tracker's own.
    """

    name: str
    role: str
    folder: Path
    tags: dict[str, str] = field(default_factory=dict)
    metrics: dict[str, float] = field(default_factory=dict)
    params: dict[str, Any] = field(default_factory=dict)
    experiment_id: str | None = None
    experiment_name: str | None = None


class Tracker:
    """Receives a sweep's start, each finished job and the sweep's end, and reads runs back.

    The base records nothing and finds nothing: reading raises LookupError naming why.
    """

    # Whether jobs are meant to be recorded: a job without a run id is "not logged" (reported,
    # exit status 1, left for ``harness sync``) only with a tracker that records.
    records = False

    def check(self) -> None:
        """Raises before anything runs if the tracker could not record (e.g. its server is down)."""

    def start_sweep(self, name: str, tags: dict[str, str]) -> str | None:
        """Opens the sweep's parent record; returns its id (or None)."""
        return None

    def start_job(self, info: JobInfo, parent_id: str | None) -> str | None:
        """Opens a job's record as running (a child of ``parent_id`` in a sweep); returns its id."""
        return None

    def log_job(self, outcome: JobOutcome, info: JobInfo, parent_id: str | None,
                run_id: str | None = None, opened: Callable[[str], None] | None = None) -> str | None:
        """Records one job in the record ``run_id`` opened by :meth:`start_job` (a new one if None,
        handed to ``opened`` before anything is logged into it) and closes it as the job ended;
        returns its id."""
        return None

    def log_traces(self, run_id: str, result, name: str, fresh: bool = False) -> int | None:
        """Records the job's questions (``result``: its RunResult) that run ``run_id`` lacks, one
        trace each (:meth:`log_job` does it for a job it logs; ``harness sync`` for runs logged
        before their traces were). ``fresh``: the run has none of them yet (a race's round, the
        questions it adds), so it is not read first. Returns how many traces it wrote, or None
        where they were queued for the background writer (:meth:`flush` waits)."""
        return 0

    def write_traces(self, run_id: str, result, name: str, question_ids: list[str] | None = None) -> int:
        """Writes here and now the traces run ``run_id`` lacks of these questions of ``result`` (None:
        those ``tracking.traces`` picks); returns how many (``harness traces``). LookupError where
        the store holds no traces; a failure raises, naming the store and why."""
        raise LookupError(f"{self.describe()} holds no traces")

    def written(self, run_id: str) -> Written:
        """What this tracker has written into run ``run_id`` so far (``harness sync``'s report)."""
        return Written()

    def share_outages(self, sweep_dir: Path) -> None:
        """Shares the waiting for a store that stopped answering with the other jobs of the sweep in
        ``sweep_dir``, whatever process runs them: one outage, one wait
        (:mod:`harness.tracking.sweep.outage`)."""

    def expect_traces(self, questions: int) -> None:
        """A sweep whose jobs have about ``questions`` questions each is starting, its traces written
        by this process: a tracker that writes them in the background may get ready now."""

    def flush(self) -> list[str]:
        """Waits for what is still being written in the background (a sweep's traces); returns a
        line per job whose part of it could not be written."""
        return []

    def running_runs(self, sweep_id: str) -> dict[str, dict[str, str]]:
        """The sweep's records still marked running (parent included): id -> tags."""
        return {}

    def mark_killed(self, run_ids: list[str], reason: str) -> None:
        """Closes records as killed, with the reason (a signal name, a dead process)."""

    def reopen_sweep(self, parent_id: str | None, tags: dict[str, str]) -> None:
        """Marks a resumed sweep's parent record running again, with new tags."""

    def reopen_run(self, run_id: str, tags: dict[str, str]) -> None:
        """Marks a finished record running again, with new tags (a resumed sweep's parent)."""

    def has_run(self, run_id: str) -> bool:
        """Whether the store holds this run (``harness sync`` re-creates a parent it lacks)."""
        return self.run_status(run_id) is not None

    def run_status(self, run_id: str) -> str | None:
        """The run's status (``RUNNING``, ``FINISHED``, ``FAILED``, ``KILLED``), None when the store
        does not hold it (or it was deleted)."""
        return None

    def log_metrics(self, run_id: str | None, metrics: dict[str, float]) -> None:
        """Adds metrics to a recorded run (e.g. a sweep's statistics to each child)."""

    def log_files(self, run_id: str | None, paths: list[Path]) -> None:
        """Attaches files to a recorded run."""

    def end_sweep(self, parent_id: str | None, texts: dict[str, str], jobs: int, failed: int) -> None:
        """Closes the sweep's parent record with its job counts and ``texts`` (file name -> content:
        the leaderboard rendered as CSV and markdown)."""

    def log_report(self, report: ReportRun) -> RunRef | None:
        """Records an analysis as a finished run; returns it (None when nothing is recorded)."""
        return None

    def resolve_run(self, ref: str, experiment: str | None = None) -> RunRef:
        """The run named by ``ref``: its id, else its name (or an id prefix) within ``experiment``
        (without one: the newest run of that name anywhere). LookupError if there is none, or
        several listing them."""
        raise LookupError(f"{self.describe()} cannot look up run '{ref}'; give a run folder instead")

    def finished_runs(self, experiment: str) -> list[RunRef]:
        """The newest finished run of each configuration in ``experiment`` that has a
        per-question table (sweep parents and reports left out)."""
        raise LookupError(f"{self.describe()} cannot list the runs of experiment '{experiment}'")

    def fetch_table(self, run: RunRef, folder: Path) -> Path:
        """Copies the run's per-question table into ``folder``; LookupError if it has none."""
        raise LookupError(f"{self.describe()} holds no table for run '{run.name}'")

    def fetch_sweep_file(self, runs: list[RunRef], name: str) -> tuple[str | None, str | None]:
        """File ``name`` as logged by the newest sweep the runs belong to, with that sweep's
        parent run id; ``(None, None)`` when none of their sweeps logged it."""
        return None, None

    def fetch_config(self, run: RunRef) -> str | None:
        """The run's logged ``config.yaml`` (resolved, secrets removed), or None."""
        return None

    def run_metrics(self, run: RunRef) -> dict[str, float]:
        """The run's logged metrics (``harness reproduce`` diffs against them)."""
        raise LookupError(f"{self.describe()} holds no metrics for run '{run.name}'")

    def set_tags(self, run_id: str, tags: dict[str, str]) -> None:
        """Adds tags to a recorded run."""

    def human_feedback(self, run: RunRef, names: list[str]) -> FeedbackLabels:
        """People's feedback named ``names`` on the run's question traces (``--labels mlflow:NAME``);
        LookupError where the store holds none."""
        raise LookupError(f"{self.describe()} holds no traces to read labels from; give a labels file")

    def tag_traces(self, run: RunRef, question_ids: list[str], tag: str, value: str) -> int:
        """Tags the run's traces of these questions (``harness annotate export --tag-traces``);
        returns how many were tagged. LookupError where the store holds no traces."""
        raise LookupError(f"{self.describe()} holds no traces to tag")

    def where(self) -> str | None:
        """A hint telling the user where to look at the results."""
        return None

    def describe(self) -> str:
        """The store, for messages (``mlflow at sqlite:///mlflow.db``)."""
        return "tracking=none (no store)"


class NullTracker(Tracker):
    """``tracking=none``: results stay in the job folders (per_question.jsonl, metrics.json)."""
