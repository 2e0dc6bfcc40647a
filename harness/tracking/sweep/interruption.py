"""Stopping on SIGINT/SIGTERM: the runs this process has open end as KILLED, saying why.

The callback registers what it opens (a sweep's parent, the job in progress); the CLI installs
the handlers and, when a signal arrives, closes those runs and exits with 128 + the signal number
(130 for SIGINT, 143 for SIGTERM) after one line on stderr.

A signal interrupts a job (or a launcher waiting for its workers) at once. While Hydra composes
configs (start-up, between two jobs) it is held until the next job starts: an exception raised
inside OmegaConf's clean-up code turns into an unrelated config error.
"""

from __future__ import annotations

import logging
import signal
from dataclasses import dataclass
from typing import Any

log = logging.getLogger(__name__)
KILLED_BY_TAG = "harness.killed_by"


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised like Ctrl-C so that every library unwinds it the same way."""


@dataclass
class OpenRuns:
    """What this process has open in the tracker."""

    tracker: Any = None
    sweep_id: str | None = None
    sweep_dir: str | None = None
    job_run_id: str | None = None
    job_tracker: Any = None


@dataclass
class _Held:
    holding: bool = True
    signum: int | None = None


OPEN = OpenRuns()
_HELD = _Held()


def _interrupt(signum: int) -> KeyboardInterrupt:
    return Terminated() if signum == signal.SIGTERM else KeyboardInterrupt()


def _on_signal(signum, frame) -> None:
    if _HELD.holding:
        _HELD.signum = signum
        return
    raise _interrupt(signum)


def stop_on_signals() -> None:
    """SIGTERM and SIGINT unwind as KeyboardInterrupt (SIGINT stays ignored where it was, as in
    a background job); held until :func:`allow_signals`."""
    signal.signal(signal.SIGTERM, _on_signal)
    if signal.getsignal(signal.SIGINT) is not signal.SIG_IGN:
        signal.signal(signal.SIGINT, _on_signal)


def hold_signals() -> None:
    """From now on a signal waits for :func:`allow_signals`."""
    _HELD.holding = True


def allow_signals() -> None:
    """Signals interrupt at once again; one that arrived while held is raised now."""
    _HELD.holding = False
    if _HELD.signum is not None:
        signum, _HELD.signum = _HELD.signum, None
        raise _interrupt(signum)


def close_open_runs(signal_name: str) -> int:
    """Marks the job in progress and every RUNNING run of this process's sweep KILLED; returns how many."""
    for signum in (signal.SIGINT, signal.SIGTERM):  # a second Ctrl-C must not interrupt the clean-up
        signal.signal(signum, signal.SIG_IGN)
    killed = 0
    try:
        if OPEN.job_run_id and OPEN.job_tracker is not None:
            OPEN.job_tracker.mark_killed([OPEN.job_run_id], signal_name)
            killed += 1
        if OPEN.sweep_id and OPEN.tracker is not None:
            running = [r for r in OPEN.tracker.running_runs(OPEN.sweep_id) if r != OPEN.job_run_id]
            OPEN.tracker.mark_killed(running, signal_name)
            killed += len(running)
    except Exception:  # the signal still ends the process; say what could not be closed
        log.exception("could not mark the open runs KILLED")
    return killed


def exit_code(stop: KeyboardInterrupt) -> tuple[str, int]:
    """The signal's name and the conventional exit status for it."""
    signum = signal.SIGTERM if isinstance(stop, Terminated) else signal.SIGINT
    return signal.Signals(signum).name, 128 + int(signum)
