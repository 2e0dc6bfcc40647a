"""The harness launcher (``hydra/launcher=harness``, the default of ``harness -m``).

Hydra's basic launcher runs every job in the sweep's own process: a job that crashes the
interpreter (a native library's segfault, memory exhausted) ends the whole sweep, and what one job
built is only reused if it was built there. The joblib launcher isolates the jobs, but a worker
that dies ends its whole batch.

This launcher hands a batch's jobs to the harness's long-lived worker processes
(:mod:`harness.workers`), each job run there by Hydra's own :func:`~hydra.core.utils.run_job`: the
same job folders and ``.hydra/*.yaml`` files, the callbacks' ``on_job_start``/``on_job_end`` with a
``JobReturn`` per job, in job order. A worker keeps the parts its jobs built for the sweep's later
jobs and a race's rounds; a worker that dies fails only the job it was running. Where the platform
cannot start workers, the batch runs in Hydra's basic launcher, as the log says.
"""

from __future__ import annotations

import logging
import weakref
from pathlib import Path
from typing import Optional, Sequence

from hydra._internal.core_plugins.basic_launcher import BasicLauncher
from hydra.core.utils import JobReturn, configure_log, filter_overrides, setup_globals
from hydra.plugins.launcher import Launcher
from hydra.types import HydraContext, TaskFunction
from omegaconf import DictConfig

import harness.workers.process as process
from harness.workers import shared_pool
from harness.workers.batch import Workers

log = logging.getLogger(__name__)


class HarnessLauncher(Launcher):
    def __init__(self, workers: int = 1) -> None:
        super().__init__()
        if int(workers) < 1:
            raise ValueError(f"hydra.launcher.workers must be at least 1, got {workers}")
        self.config: Optional[DictConfig] = None
        self.task_function: Optional[TaskFunction] = None
        self.hydra_context: Optional[HydraContext] = None
        self.workers = Workers(shared_pool(), int(workers))
        weakref.finalize(self, self.workers.stop)  # the sweep is over: its launcher is collected

    def setup(self, *, hydra_context: HydraContext, task_function: TaskFunction, config: DictConfig) -> None:
        self.config, self.hydra_context, self.task_function = config, hydra_context, task_function

    def launch(self, job_overrides: Sequence[Sequence[str]], initial_job_idx: int) -> Sequence[JobReturn]:
        assert self.config is not None and self.hydra_context is not None and self.task_function is not None
        if not process.supported():
            log.warning("hydra/launcher=harness: this platform cannot start worker processes; "
                        "the jobs run in Hydra's basic launcher")
            basic = BasicLauncher()
            basic.setup(hydra_context=self.hydra_context, task_function=self.task_function, config=self.config)
            return basic.launch(job_overrides, initial_job_idx)
        setup_globals()
        configure_log(self.config.hydra.hydra_logging, self.config.hydra.verbose)
        Path(str(self.config.hydra.sweep.dir)).mkdir(parents=True, exist_ok=True)
        log.info(f"Launching {len(job_overrides)} jobs in {min(self.workers.size, len(job_overrides))} "
                 f"worker process(es)")
        for number, overrides in enumerate(job_overrides, start=initial_job_idx):
            log.info(f"\t#{number} : {' '.join(filter_overrides(overrides))}")
        results = self.workers.run(self.hydra_context, self.config, self.task_function, job_overrides,
                                   initial_job_idx)
        configure_log(self.config.hydra.hydra_logging, self.config.hydra.verbose)
        return results
