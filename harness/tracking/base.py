"""The tracker interface; trackers are chosen with the ``tracking`` config group."""

from __future__ import annotations

from pathlib import Path

from harness.tracking.leaderboard import Leaderboard
from harness.tracking.outcome import JobInfo, JobOutcome


class Tracker:
    """Receives a sweep's start, each finished job and the sweep's end. The base does nothing."""

    def start_sweep(self, name: str, tags: dict[str, str]) -> str | None:
        """Opens the sweep's parent record; returns its id (or None)."""
        return None

    def log_job(self, outcome: JobOutcome, info: JobInfo, parent_id: str | None) -> str | None:
        """Records one job (a child of ``parent_id`` in a sweep, top level otherwise); returns its id."""
        return None

    def log_metrics(self, run_id: str | None, metrics: dict[str, float]) -> None:
        """Adds metrics to a recorded run (e.g. a sweep's statistics to each child)."""

    def log_files(self, run_id: str | None, paths: list[Path]) -> None:
        """Attaches files to a recorded run."""

    def end_sweep(self, parent_id: str | None, board: Leaderboard, jobs: int, failed: int) -> None:
        """Closes the sweep's parent record with the leaderboard and failure count."""

    def where(self) -> str | None:
        """A hint telling the user where to look at the results."""
        return None


class NullTracker(Tracker):
    """``tracking=none``: results stay in the job folders (per_question.jsonl, metrics.json)."""
