"""The harness launcher (``hydra/launcher=harness``, the default of ``harness -m``).

Hydra's basic launcher runs every job in the sweep's own process: a job that crashes the
interpreter (a native library's segfault, memory exhausted) ends the whole sweep, and what one job
built is only reused if it was built there. The joblib launcher isolates the jobs, but a worker
that dies ends its whole batch.

This launcher runs a batch's jobs in long-lived worker processes (:mod:`.worker`, started and
stopped by :mod:`._process`), each with
Hydra's own :func:`~hydra.core.utils.run_job`: the same job folders and ``.hydra/*.yaml`` files,
the callbacks' ``on_job_start``/``on_job_end`` with a ``JobReturn`` per job, in job order. A worker
keeps the parts its jobs built (indexes, encoders, models) and the compositions of their configs
for the sweep's later jobs and across a race's rounds. A worker that dies fails only the job it was
running, with the reason (the signal or exit status); the launcher then calls ``on_job_end`` for
that job itself, and a fresh worker runs the rest. The workers stop when the sweep ends.
"""

from __future__ import annotations

import logging
import weakref
from collections import deque
from multiprocessing.connection import wait
from pathlib import Path
from typing import Any, List, Optional, Sequence

from hydra.core.utils import JobReturn, configure_log, filter_overrides, setup_globals
from hydra.plugins.launcher import Launcher
from hydra.types import HydraContext, TaskFunction
from omegaconf import DictConfig

from hydra_plugins.harness_launcher._process import Worker, death, stop_all
from hydra_plugins.harness_launcher.worker import configuration_of

log = logging.getLogger(__name__)


class WorkerLost(RuntimeError):
    """The worker process running a job died before the job ended."""


class HarnessLauncher(Launcher):
    def __init__(self, workers: int = 1) -> None:
        super().__init__()
        if int(workers) < 1:
            raise ValueError(f"hydra.launcher.workers must be at least 1, got {workers}")
        self.workers = int(workers)
        self.config: Optional[DictConfig] = None
        self.task_function: Optional[TaskFunction] = None
        self.hydra_context: Optional[HydraContext] = None
        self._pool: list[Worker] = []
        self._ran: dict[tuple[str, ...], Worker] = {}  # the worker that ran each configuration last
        weakref.finalize(self, stop_all, self._pool)  # the sweep is over: its launcher is collected

    def setup(self, *, hydra_context: HydraContext, task_function: TaskFunction, config: DictConfig) -> None:
        self.config, self.hydra_context, self.task_function = config, hydra_context, task_function

    def launch(self, job_overrides: Sequence[Sequence[str]], initial_job_idx: int) -> Sequence[JobReturn]:
        setup_globals()
        assert self.config is not None and self.hydra_context is not None and self.task_function is not None
        configure_log(self.config.hydra.hydra_logging, self.config.hydra.verbose)
        Path(str(self.config.hydra.sweep.dir)).mkdir(parents=True, exist_ok=True)
        workers = min(self.workers, len(job_overrides))
        log.info(f"Launching {len(job_overrides)} jobs in {workers} worker process(es)")
        for number, overrides in enumerate(job_overrides, start=initial_job_idx):
            log.info(f"\t#{number} : {' '.join(filter_overrides(overrides))}")
        try:
            return self._run(job_overrides, initial_job_idx, workers)
        except BaseException:  # Ctrl-C, SIGTERM: no worker goes on computing for a sweep that stopped
            stop_all(self._pool, at_once=True)
            raise

    def _run(self, job_overrides: Sequence[Sequence[str]], initial_job_idx: int, workers: int) -> List[JobReturn]:
        from harness.jobs import checked_in_this_process

        checked = set(checked_in_this_process(str(self.config.hydra.sweep.dir)))
        waiting = _Waiting(job_overrides, self._ran)
        results: list[Any] = [None] * len(job_overrides)
        running: dict[Worker, tuple[int, Sequence[str]]] = {}
        while waiting or running:
            while waiting and len(running) < workers:
                busy = self._idle_worker(running)
                position, overrides = waiting.take(busy)
                busy.send(("job", initial_job_idx + position, list(overrides), checked))
                running[busy] = (position, overrides)
                self._ran[configuration_of(list(overrides))] = busy
            ready = wait([w.conn for w in running] + [w.sentinel for w in running])
            for busy in [w for w in running if w.conn in ready or w.sentinel in ready]:
                position, overrides = running.pop(busy)
                answer = busy.receive()
                if answer is None:  # the worker died: this job failed, the others go on
                    self._pool.remove(busy)
                    busy.stop(at_once=True)
                    results[position] = self._lost(busy, initial_job_idx + position, list(overrides))
                elif answer[0] == "error":  # the job's config could not be composed, as in the basic launcher
                    raise answer[1]
                else:
                    results[position] = answer[1]
                    if not busy.alive():  # it answered, then died: the next job gets a new one
                        self._pool.remove(busy)
                        busy.stop(at_once=True)
        configure_log(self.config.hydra.hydra_logging, self.config.hydra.verbose)
        return results

    def _idle_worker(self, running: dict) -> Worker:
        for candidate in self._pool:
            if candidate not in running:
                return candidate
        started = Worker.start((self.hydra_context, self.config, self.task_function, self._compositions()))
        self._pool.append(started)
        return started

    def _compositions(self) -> dict:
        """The compositions of this sweep's configs the start check made (harness.config.composition),
        for the worker: shipping one costs a few milliseconds, composing it again ~0.4 s."""
        from harness.config.composition import ComposedByChoices

        composer = self.hydra_context.config_loader.load_sweep_config
        return composer.compositions(self.config) if isinstance(composer, ComposedByChoices) else {}

    def _lost(self, lost: Worker, number: int, overrides: list[str]) -> JobReturn:
        """The job the dead worker was running, as a failed job: its folder says why, and the
        callbacks' ``on_job_end`` gets its ``JobReturn`` here, as the worker would have called it."""
        from hydra_plugins.harness_launcher.lost_job import end_lost_job

        reason = f"its worker process died ({death(lost.process.returncode)}) while running it"
        log.error("job #%d failed: %s; the next jobs run in a new worker", number, reason)
        return end_lost_job(self.hydra_context, self.config, number, overrides, WorkerLost(reason))


class _Waiting:
    """A batch's jobs not started yet, in job order; a worker takes the first of a configuration it
    ran last, if any (a race's next round: it continues it on the pipeline it built), else the first."""

    def __init__(self, job_overrides: Sequence[Sequence[str]], ran: dict) -> None:
        self.order = deque(enumerate(job_overrides))
        self.taken: set[int] = set()
        self.preferred: dict[Worker, deque] = {}
        for position, overrides in self.order:
            worker = ran.get(configuration_of(list(overrides)))
            if worker is not None:
                self.preferred.setdefault(worker, deque()).append((position, overrides))

    def __bool__(self) -> bool:
        return bool(self._drop_taken())

    def take(self, worker: Worker) -> tuple[int, Sequence[str]]:
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
