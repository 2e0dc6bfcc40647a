"""A launcher's batch of jobs run on its workers (:class:`Workers`).

Each job goes to an idle worker (a new one from the process's :class:`~harness.workers.pool.WorkerPool`
while fewer than ``size`` run); a worker takes the next round of a configuration it ran last, if
any (it continues it on the pipeline it built), else the batch's next job in job order
(:class:`Waiting`). A worker that dies fails only the job it was running, with the reason (the
signal or exit status: :mod:`.lost_job`); a fresh worker runs the rest. The answers come back in
job order.
"""

from __future__ import annotations

import logging
from collections import deque
from multiprocessing.connection import wait
from typing import Any, Sequence

from hydra.core.utils import JobReturn

from harness.jobs import checked_in_this_process, compositions_of_this_process
from harness.tracking.sweep import handoff
from harness.workers.lost_job import WorkerLost, end_lost_job
from harness.workers.pool import WorkerPool
from harness.workers.process import Worker
from harness.workers.rounds import Rounds, rounds_of

log = logging.getLogger(__name__)


class Workers:
    """The workers of one launcher, kept across its launches (a race's rounds).

    Args:
        pool: the process's pool the workers come from.
        size: how many run side by side.
    """

    def __init__(self, pool: WorkerPool, size: int) -> None:
        self.pool, self.size = pool, size
        self.live: list[Worker] = []
        self.ran: dict[tuple[str, ...], Worker] = {}  # the worker that ran each configuration last

    def run(self, hydra_context, config, task_function, job_overrides: Sequence[Sequence[str]],
            initial_job_idx: int) -> list[JobReturn]:
        """Each job's ``JobReturn``, in job order; a job whose config does not compose raises, as in
        Hydra's basic launcher."""
        try:
            return self._run(hydra_context, config, task_function, job_overrides, initial_job_idx)
        except BaseException:  # Ctrl-C, SIGTERM: no worker goes on computing for a sweep that stopped
            self.stop(at_once=True)
            raise

    def stop(self, at_once: bool = False) -> None:
        while self.live:
            self.pool.stop(self.live.pop(), at_once)

    def _run(self, hydra_context, config, task_function, job_overrides, initial_job_idx) -> list[JobReturn]:
        sweep = (hydra_context, config, task_function)
        rounds = rounds_of(config)
        checked = set(checked_in_this_process(str(config.hydra.sweep.dir)))
        waiting = Waiting(job_overrides, self.ran, rounds)
        results: list[Any] = [None] * len(job_overrides)
        running: dict[Worker, tuple[int, Sequence[str]]] = {}
        size = min(self.size, len(job_overrides))
        left: list[bytes] = []  # what the jobs that ended left to this process (logging their runs, traces)
        while waiting or running:
            while waiting and len(running) < size:
                busy = self._idle_worker(running, sweep)
                position, overrides = waiting.take(busy)
                busy.send(("job", initial_job_idx + position, list(overrides), checked))
                running[busy] = (position, overrides)
                self.ran[rounds.configuration_of(list(overrides))] = busy
            handoff.run(left)  # while the workers compute their next jobs
            left = []
            ready = set(wait([w for busy in running for w in busy.waitables()]))
            for busy in [w for w in running if ready.intersection(w.waitables())]:
                position, overrides = running.pop(busy)
                answer = busy.receive()
                if answer is None:  # the worker died: this job failed, the others go on
                    self._drop(busy)
                    results[position] = self._lost(busy, hydra_context, config, initial_job_idx + position,
                                                   list(overrides))
                elif answer[0] == "error":  # the job's config could not be composed, as in the basic launcher
                    handoff.run(left)  # the jobs that ended are logged
                    raise answer[1]
                else:
                    results[position] = answer[1]
                    left.extend(answer[2])
                    if not busy.alive():  # it answered, then died: the next job gets a new one
                        self._drop(busy)
        handoff.run(left)
        return results

    def _idle_worker(self, running: dict, sweep: tuple) -> Worker:
        for candidate in self.live:
            if candidate not in running:
                return candidate
        hydra_context, config, _ = sweep
        # the compositions the start check made, for the worker: shipping one costs a few
        # milliseconds, composing it again ~0.4 s
        compositions = compositions_of_this_process(str(config.hydra.sweep.dir),
                                                    hydra_context.config_loader).compositions(config)
        started = self.pool.start((*sweep, compositions))
        self.live.append(started)
        return started

    def _drop(self, worker: Worker) -> None:
        self.live.remove(worker)
        self.pool.stop(worker, at_once=True)

    @staticmethod
    def _lost(lost: Worker, hydra_context, config, number: int, overrides: list[str]) -> JobReturn:
        """The job the dead worker was running, as a failed job: its folder says why, and the
        callbacks' ``on_job_end`` gets its ``JobReturn`` here, as the worker would have called it."""
        reason = f"its worker process died ({lost.death()}) while running it"
        log.error("job #%d failed: %s; the next jobs run in a new worker", number, reason)
        return end_lost_job(hydra_context, config, number, overrides, WorkerLost(reason))


class Waiting:
    """A batch's jobs not started yet, in job order; a worker takes the first of a configuration it
    ran last, if any (a race's next round: it continues it on the pipeline it built), else the first."""

    def __init__(self, job_overrides: Sequence[Sequence[str]], ran: dict, rounds: Rounds = Rounds()) -> None:
        self.order = deque(enumerate(job_overrides))
        self.taken: set[int] = set()
        self.preferred: dict[Any, deque] = {}
        for position, overrides in self.order:
            worker = ran.get(rounds.configuration_of(list(overrides)))
            if worker is not None:
                self.preferred.setdefault(worker, deque()).append((position, overrides))

    def __bool__(self) -> bool:
        return bool(self._drop_taken())

    def take(self, worker) -> tuple[int, Sequence[str]]:
        mine = self.preferred.get(worker, deque())
        while mine and mine[0][0] in self.taken:
            mine.popleft()
        job = mine.popleft() if mine else self._drop_taken().popleft()
        self.taken.add(job[0])
        return job

    def _drop_taken(self) -> deque:
        while self.order and self.order[0][0] in self.taken:
            self.order.popleft()
        return self.order
