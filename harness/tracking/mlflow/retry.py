"""Waiting out a tracking server that blinks: a bounded retry with backoff.

A server restarted mid-sweep (a deploy, a crashed pod) is back within seconds to a minute; a job
that finished meanwhile should still be logged. While the server does not answer, a failed call is
tried again after 1, 2, 4... seconds (``first_wait`` doubled) until ``seconds`` have passed since
the outage was first seen; then it fails and the job's results wait for ``harness sync``. A failure
while the server answers is a real error and is raised at once.

One outage costs a sweep one wait: the outage's start is shared by the sweep's jobs
(:mod:`harness.tracking.sweep.outage`, a file in the sweep folder), so a job that finds the
server still gone once the window has run out asks it once (the probe) and moves on. A call that
gets through ends the outage: the next one is waited for again.
"""

from __future__ import annotations

import logging
import time
from typing import Callable, TypeVar

from harness.log_filters import FILE_ONLY
from harness.tracking.sweep.outage import OutageRecord

log = logging.getLogger(__name__)

T = TypeVar("T")

# Servers this process is waiting for: the console hears of an outage once, not per call or job.
_WAITING: set[str] = set()


class Outage:
    """One tracker's patience with its server, shared by all its calls (and, through ``record``, by
    the jobs of its sweep): once a window has run out, later calls fail at their first error
    (after one probe) instead of waiting again, until a call gets through.

    Args:
        seconds: how long to keep trying after the first failure (0: never retry).
        first_wait: seconds before the first retry; doubled after each.
        reachable: whether the server answers now (a probe).
        name: the server, for messages.
        record: where the outage's start is kept (default: in this object; a sweep's jobs share
            :class:`~harness.tracking.sweep.outage.SweepOutageRecord`).
        clock, sleep: injectable for tests; the clock is wall time, comparable across processes.
    """

    def __init__(self, seconds: float, first_wait: float, reachable: Callable[[], bool], name: str,
                 clock: Callable[[], float] = time.time, sleep: Callable[[float], None] = time.sleep,
                 record: OutageRecord | None = None) -> None:
        if seconds < 0 or first_wait <= 0:
            raise ValueError(f"tracking.server.retry_seconds must be >= 0 and retry_wait > 0, "
                             f"got {seconds} and {first_wait}")
        self.seconds, self.first_wait, self.reachable, self.name = seconds, first_wait, reachable, name
        self.clock, self.sleep = clock, sleep
        self.record = record or OutageRecord()

    def run(self, action: Callable[[], T], what: str) -> T:
        """``action()``, tried again while the server does not answer and the window lasts; after
        the window, while the outage lasts, a short probe instead (a call into a server that hangs
        could take MLflow's whole HTTP timeout and retries)."""
        since = self.record.since(self.name) if self.seconds else None
        if since is not None and self.clock() >= since + self.seconds and not self.reachable():
            raise self._still_down(since)
        wait, waited = self.first_wait, False
        while True:
            try:
                result = action()
            except Exception:
                if self.seconds == 0:
                    raise
                if self.reachable():
                    if waited:  # it answers again: the failure may have been the outage's last
                        waited = False
                        continue
                    raise
                now = self.clock()
                since, first = self.record.begin(self.name, now)
                deadline = since + self.seconds
                if first and self.name not in _WAITING:
                    _WAITING.add(self.name)
                    log.warning("tracking server %s is not answering; waiting up to %g s for it "
                                "(tracking.server.retry_seconds)", self.name, self.seconds)
                if now >= deadline:
                    if waited:
                        raise ConnectionError(f"tracking server {self.name} unreachable for {self.seconds:g} s "
                                              f"(tracking.server.retry_seconds)") from None
                    raise self._still_down(since) from None
                log.info("tracking server %s unreachable (%s); trying again in %.0f s", self.name, what,
                         min(wait, deadline - now), exc_info=True, extra=FILE_ONLY)
                self.sleep(min(wait, deadline - now))
                wait, waited = wait * 2, True
                continue
            if self.name in _WAITING or self.record.since(self.name) is not None:
                log.info("tracking server %s answers again", self.name)
                self.record.end(self.name)
            _WAITING.discard(self.name)
            return result

    def _still_down(self, since: float) -> ConnectionError:
        return ConnectionError(f"tracking server {self.name} still unreachable (tried once; down since "
                               f"{_clock_time(since)}, waited for {self.seconds:g} s: tracking.server.retry_seconds)")


def _clock_time(seconds: float) -> str:
    """A time of day (UTC) for a console line."""
    return time.strftime("%H:%M:%S UTC", time.gmtime(seconds))
