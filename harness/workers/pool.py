"""The worker processes of this process: a :class:`WorkerPool`, one per process (:func:`shared_pool`)."""

from __future__ import annotations

import atexit
import functools

from hydra.types import RunMode
from omegaconf import DictConfig, OmegaConf

import harness.workers.process as process
from harness.workers.process import Worker

# The launcher whose sweeps run in workers (hydra_plugins/harness_launcher), named, not imported.
LAUNCHER = "hydra_plugins.harness_launcher.launcher.HarnessLauncher"


class WorkerPool:
    """Every live worker this process started, and the spare one started early for a sweep.

    ``harness -m`` starts a worker before Hydra composes its sweep (:meth:`prestart`): its imports
    (the harness's task and callbacks, MLflow's SQL store: ~3 s of CPU) then overlap this process's
    own start. The first launcher that needs a worker takes it (:meth:`start`); unused, it is
    stopped with the others at exit (:meth:`stop_all`).
    """

    def __init__(self) -> None:
        self.started: set[Worker] = set()
        self.spare: list[Worker] = []

    def prestart(self) -> None:
        """Starts a worker now, for the sweep this process is about to launch (once)."""
        if not self.spare and process.supported():
            self.spare.append(self._spawn())

    def start(self, sweep: tuple) -> Worker:
        """A worker for ``sweep`` (the launcher's context, config, task function and compositions):
        the spare one, else a new one."""
        worker = self._take_spare() or self._spawn()
        worker.begin(sweep)
        return worker

    def stop(self, worker: Worker, at_once: bool = False) -> None:
        worker.stop(at_once)
        self.started.discard(worker)

    def stop_all(self) -> None:
        """Stops every worker: the spare at once (it has had no sweep), the others once they have
        finished what they were sent."""
        while self.spare:
            self.stop(self.spare.pop(), at_once=True)
        for worker in list(self.started):
            self.stop(worker)

    def _spawn(self) -> Worker:
        worker = Worker.spawn()
        self.started.add(worker)
        return worker

    def _take_spare(self) -> Worker | None:
        while self.spare:
            spare = self.spare.pop()
            if spare.alive():
                return spare
            self.stop(spare, at_once=True)
        return None


@functools.cache
def shared_pool() -> WorkerPool:
    """This process's pool (its workers stopped at exit at the latest)."""
    pool = WorkerPool()
    atexit.register(pool.stop_all)
    return pool


def runs_in_workers(cfg: DictConfig, multirun: bool) -> bool:
    """Whether the command composed as ``cfg`` is a sweep (``multirun``: ``-m``, or ``hydra.mode``
    in the config) whose jobs the harness launcher runs, on a platform that can start workers."""
    multirun = multirun or OmegaConf.select(cfg, "hydra.mode", default=None) == RunMode.MULTIRUN
    return multirun and OmegaConf.select(cfg, "hydra.launcher._target_", default=None) == LAUNCHER and process.supported()
