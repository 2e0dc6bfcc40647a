"""Which process a run belongs to, and whether that process still lives.

Runs carry their process's host, pid and start time as tags. A run left RUNNING whose process
is gone (SIGKILL, power loss) is then recognised as dead rather than as still running; the start
time guards against a recycled pid.
"""

from __future__ import annotations

import os
import socket

import psutil

HOST_TAG = "harness.hostname"
PID_TAG = "harness.pid"
STARTED_TAG = "harness.process_started"


def process_tags() -> dict[str, str]:
    """This process's host, pid and start time (seconds since the epoch), as run tags."""
    pid = os.getpid()
    return {HOST_TAG: socket.gethostname(), PID_TAG: str(pid),
            STARTED_TAG: f"{psutil.Process(pid).create_time():.2f}"}


def owner_alive(tags: dict[str, str]) -> bool | None:
    """Whether the process named by a run's tags still runs; None when that cannot be told here
    (another host, or a run without the tags)."""
    if tags.get(HOST_TAG) != socket.gethostname() or PID_TAG not in tags:
        return None
    try:
        process = psutil.Process(int(tags[PID_TAG]))
        started = process.create_time()
    except (psutil.NoSuchProcess, psutil.ZombieProcess):
        return False
    recorded = tags.get(STARTED_TAG)
    return recorded is None or abs(started - float(recorded)) < 1.0
