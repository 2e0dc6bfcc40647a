"""A worker's death is seen portably: on a pidfd where the OS has one (Linux), else by its end of the
socket closing (macOS and other POSIX systems); the portable path is forced here on Linux."""

from __future__ import annotations

import os
import signal
from multiprocessing.connection import wait

import pytest

from harness.workers.process import HAS_PIDFD, Worker


@pytest.mark.parametrize("pidfd", [False, True] if HAS_PIDFD else [False], ids=lambda p: "pidfd" if p else "portable")
def test_a_killed_worker_is_seen_dead_with_its_signal(pidfd):
    worker = Worker.spawn(pidfd=pidfd)
    try:
        assert worker.waitables() == ([worker.conn, worker.pidfd] if pidfd else [worker.conn])
        assert not wait(worker.waitables(), timeout=0)  # alive and silent: nothing to read
        os.kill(worker.process.pid, signal.SIGKILL)
        assert wait(worker.waitables(), timeout=30), "the worker's death was not seen"
        assert worker.receive() is None  # no answer: it died
    finally:
        worker.stop(at_once=True)
    assert not worker.alive() and worker.death() == "killed by SIGKILL: out of memory, or kill -9"
    assert worker.pidfd is None

