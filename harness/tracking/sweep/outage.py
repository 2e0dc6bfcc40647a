"""When a tracking server's outage began, as the jobs of a sweep share it: one outage, one wait.

A job that finds the server gone waits for it (:class:`harness.tracking.mlflow.retry.Outage`) until
``tracking.server.retry_seconds`` after the outage was first seen, by whichever job saw it first;
a job after that tries once and moves on. The jobs of a sweep run in one process (the basic
launcher) or in several (joblib, Ray), so the sweep keeps the outage's start in a small file of its
folder; a call that gets through again ends the outage for every job.
"""

from __future__ import annotations

import json
from pathlib import Path

from harness.config.files import replace_file


OUTAGE_FILE = ".harness_tracker_outage.json"


class OutageRecord:
    """When each server's current outage was first seen (seconds since the epoch), in this object."""

    def __init__(self) -> None:
        self._since: dict[str, float] = {}

    def since(self, server: str) -> float | None:
        return self._read().get(server)

    def begin(self, server: str, now: float) -> tuple[float, bool]:
        """The start of ``server``'s outage, ``now`` if none was recorded (then True: the first to see it)."""
        since = self._read()
        if server in since:
            return since[server], False
        self._write({**since, server: now})
        return now, True

    def end(self, server: str) -> None:
        since = self._read()
        if server in since:
            del since[server]
            self._write(since)

    def _read(self) -> dict[str, float]:
        return dict(self._since)

    def _write(self, since: dict[str, float]) -> None:
        self._since = since


class SweepOutageRecord(OutageRecord):
    """The record kept in the sweep folder (:data:`OUTAGE_FILE`), shared by the processes of its jobs.

    Written whole (an atomic replace); two jobs that see the outage at the same instant each write
    their own start, a second apart at most, and the later file stands.
    """

    def __init__(self, sweep_dir: Path) -> None:
        super().__init__()
        self.path = Path(sweep_dir) / OUTAGE_FILE

    def _read(self) -> dict[str, float]:
        try:
            return {server: float(since) for server, since in json.loads(self.path.read_text()).items()}
        except (FileNotFoundError, ValueError, AttributeError):  # none, or not ours: no outage recorded
            return {}

    def _write(self, since: dict[str, float]) -> None:
        if since:
            replace_file(self.path, json.dumps(since))
        else:
            self.path.unlink(missing_ok=True)
