"""Work a job leaves to the sweep's own process: what a harness launcher's worker would otherwise
do before it can take the sweep's next job (logging the job's run, ~90 ms; queueing its traces,
which its worker wrote itself before, ~13 ms a trace into SQLite).

A worker accepts the hand-off (:func:`accept`); what its job then leaves (:func:`leave`: a
module-level function and its arguments, pickled there and then) goes back with the job's answer
(:func:`taken`), and the sweep's process runs it (:func:`run`) while the worker computes the next
job. Anywhere else (a single run, the basic launcher, Ray's workers) nothing is left: the caller
does the work itself.

A left piece of work handles its own failures (the trace writer keeps each as a line for the
sweep's end report); one that cannot even be read back or run is said on its own line and kept
for the sweep's end report too (:func:`failures`).
"""

from __future__ import annotations

import logging
import pickle
from typing import Any, Callable

from harness.config.secrets import redact_text
from harness.log_filters import FILE_ONLY

log = logging.getLogger(__name__)

# What this process's current job has left; None where nobody takes it (not a worker).
_LEFT: list[bytes] | None = None
# In the sweep's process: a line per piece of left work that could not be run.
_FAILED: list[str] = []


def accept() -> None:
    """In a harness launcher's worker: its jobs' left work goes back to the sweep's process."""
    global _LEFT
    if _LEFT is None:
        _LEFT = []


def leave(function: Callable[..., Any], *args: Any) -> bool:
    """Leaves ``function(*args)`` to the sweep's process; False (nothing left) where this process
    is no worker, or where the work cannot be pickled: the caller then does it now."""
    if _LEFT is None:
        return False
    try:
        _LEFT.append(pickle.dumps((function, args), protocol=pickle.HIGHEST_PROTOCOL))
    except Exception:  # noqa: BLE001 - anything a pickler raises: done here and now instead
        log.info("%s cannot be handed to the sweep's process; done in the worker", function.__qualname__,
                 exc_info=True, extra=FILE_ONLY)
        return False
    return True


def taken() -> list[bytes]:
    """What the job that just ended left (and forgets it), to send with its answer."""
    if not _LEFT:
        return []
    left = list(_LEFT)
    _LEFT.clear()
    return left


def run(left: list[bytes]) -> None:
    """In the sweep's process: runs the work a worker's job left, in order. One that fails is said
    on its own line and kept (:func:`failures`); the sweep goes on."""
    for blob in left:
        try:
            function, args = pickle.loads(blob)
            function(*args)
        except Exception as err:  # noqa: BLE001 - one piece of left work fails; the sweep goes on
            line = redact_text(f"NOT DONE work a job left to the sweep's process: {err!r}")
            log.warning("%s", line)
            _FAILED.append(line)


def failures() -> list[str]:
    """The lines of the left work that could not be run since the last call (and forgets them)."""
    lines = list(_FAILED)
    _FAILED.clear()
    return lines
