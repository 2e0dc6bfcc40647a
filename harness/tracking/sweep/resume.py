"""Resuming a sweep (``+resume=<sweep folder>``): same folder, same parent run, unfinished jobs only.

Jobs whose folder holds a FINISHED summary of this sweep are not run again (see
:func:`harness.tracking.sweep.state.finished_job`); runs left RUNNING by a process that no longer exists
(SIGKILL, power loss) are closed as KILLED first.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from harness.tracking.sweep import state as sweep
from harness.tracking.base import Tracker
from harness.tracking.sweep.liveness import HOST_TAG, PID_TAG, owner_alive, process_tags

log = logging.getLogger(__name__)


def resume_sweep(sweep_dir: Path, resume: str, overrides: list[str], tracker: Tracker) -> dict[str, Any]:
    """Reopens the sweep in ``sweep_dir``; ValueError saying why when it cannot be resumed."""
    if Path(resume).resolve() != sweep_dir.resolve():
        raise ValueError(f"+resume={resume} and hydra.sweep.dir={sweep_dir} name different folders "
                         "(leave hydra.sweep.dir out when resuming)")
    state = sweep.read_sweep(sweep_dir)
    if not state:
        raise ValueError(f"{sweep_dir} holds no harness sweep to resume (no {sweep.SWEEP_FILE})")
    recorded = state.get("overrides")
    if recorded is not None and sweep.without_resume(recorded) != sweep.without_resume(overrides):
        raise ValueError(f"resume {sweep_dir} with the sweep's own arguments: {' '.join(recorded)}")
    close_dead_runs(tracker, state["sweep_id"])
    tracker.reopen_sweep(state.get("parent_run_id"), {**process_tags(), "harness.resumed": "true"})
    return state


def close_dead_runs(tracker: Tracker, sweep_id: str) -> list[str]:
    """Marks the sweep's runs left RUNNING by a dead process KILLED; returns their ids.

    A run whose process still lives means the sweep is still running: ValueError. A run from
    another host cannot be checked from here and is left as it is.
    """
    running = tracker.running_runs(sweep_id)
    alive = {run_id: tags for run_id, tags in running.items() if owner_alive(tags)}
    if alive:
        tags = next(iter(alive.values()))
        raise ValueError(f"the sweep is still running (pid {tags[PID_TAG]} on {tags[HOST_TAG]}); stop it first")
    dead = []
    for run_id, tags in running.items():
        if owner_alive(tags) is None:
            log.warning("run %s is RUNNING on %s, which cannot be checked from here; left as it is",
                        run_id, tags.get(HOST_TAG, "an unknown host"))
            continue
        tracker.mark_killed([run_id], f"dead process {tags[PID_TAG]} on {tags[HOST_TAG]}")
        dead.append(run_id)
    return dead
