"""Waiting out a tracking server that blinks: a bounded retry with backoff.

A server restarted mid-sweep (a deploy, a crashed pod) is back within seconds to a minute; a job
that finished meanwhile should still be logged. While the server does not answer, a failed call is
tried again after 1, 2, 4... seconds (``first_wait`` doubled) until ``seconds`` have passed since
the outage was first seen; then it fails and the job's results wait for ``harness sync``. A failure
while the server answers is a real error and is raised at once.
"""

from __future__ import annotations

import logging
import time
from typing import Callable, TypeVar

from harness.log_filters import FILE_ONLY

log = logging.getLogger(__name__)

T = TypeVar("T")

# Servers this process is waiting for: the console hears of an outage once, not per call or job.
_WAITING: set[str] = set()


class Outage:
    """One tracker's patience with its server, shared by all its calls: once a window has run
    out, later calls of the same tracker fail at their first error instead of waiting again.

    Args:
        seconds: how long to keep trying after the first failure (0: never retry).
        first_wait: seconds before the first retry; doubled after each.
        reachable: whether the server answers now (a probe).
        name: the server, for messages.
        clock, sleep: injectable for tests.
    """

    def __init__(self, seconds: float, first_wait: float, reachable: Callable[[], bool], name: str,
                 clock: Callable[[], float] = time.monotonic, sleep: Callable[[float], None] = time.sleep) -> None:
        if seconds < 0 or first_wait <= 0:
            raise ValueError(f"tracking.server.retry_seconds must be >= 0 and retry_wait > 0, "
                             f"got {seconds} and {first_wait}")
        self.seconds, self.first_wait, self.reachable, self.name = seconds, first_wait, reachable, name
        self.clock, self.sleep = clock, sleep
        self.deadline: float | None = None  # set when an outage is first seen, cleared when a call succeeds

    def run(self, action: Callable[[], T], what: str) -> T:
        """``action()``, tried again while the server does not answer and the window lasts."""
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
                if self.deadline is None:
                    self.deadline = now + self.seconds
                    if self.name not in _WAITING:
                        _WAITING.add(self.name)
                        log.warning("tracking server %s is not answering; waiting up to %g s for it "
                                    "(tracking.server.retry_seconds)", self.name, self.seconds)
                if now >= self.deadline:
                    raise ConnectionError(f"tracking server {self.name} unreachable for {self.seconds:g} s "
                                          f"(tracking.server.retry_seconds)") from None
                log.info("tracking server %s unreachable (%s); trying again in %.0f s", self.name, what,
                         min(wait, self.deadline - now), exc_info=True, extra=FILE_ONLY)
                self.sleep(min(wait, self.deadline - now))
                wait, waited = wait * 2, True
                continue
            if self.deadline is not None or self.name in _WAITING:
                log.info("tracking server %s answers again", self.name)
            self.deadline = None
            _WAITING.discard(self.name)
            return result
