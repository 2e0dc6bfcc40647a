"""A job whose worker process died, ended as the harness's task ends a job that failed.

The job's config is composed again here, given its id, number and folder as the worker's job
(:mod:`.job`) gives them; its folder gets ``traceback.txt`` with the reason, and the callbacks'
``on_job_end`` a ``JobReturn``
whose value is a FAILED :class:`~harness.tracking.outcome.JobOutcome` (``on_job_start`` ran in the
worker, before it died). As any failed job of the harness, it is counted and reported with its
reason, and the sweep goes on (Hydra's sweepers stop at a job whose status is FAILED).
"""

from __future__ import annotations

import copy
import os
from pathlib import Path

from hydra.core.hydra_config import HydraConfig
from hydra.core.utils import JobReturn, JobRuntime, JobStatus
from hydra.types import HydraContext
from omegaconf import DictConfig, open_dict

from harness.tracking.outcome import JobOutcome
from hydra_plugins.harness_launcher.job import job_folder, task_config_of


def end_lost_job(hydra_context: HydraContext, sweep_config: DictConfig, number: int, overrides: list[str],
                 error: BaseException) -> JobReturn:
    config = hydra_context.config_loader.load_sweep_config(sweep_config, list(overrides))
    with open_dict(config):
        config.hydra.job.id = number
        config.hydra.job.num = number
    output_dir = os.path.abspath(job_folder(config))
    outcome = JobOutcome.from_exception(error, Path(output_dir))
    Path(output_dir).mkdir(parents=True, exist_ok=True)
    (Path(output_dir) / "traceback.txt").write_text(outcome.error)
    before = HydraConfig.instance().cfg
    HydraConfig.instance().set_config(config)
    try:
        result = JobReturn(overrides=list(config.hydra.overrides.task), cfg=task_config_of(config),
                           hydra_cfg=copy.deepcopy(HydraConfig.instance().cfg), working_dir=os.getcwd(),
                           task_name=JobRuntime.instance().get("name"), status=JobStatus.COMPLETED,
                           _return_value=outcome)
        hydra_context.callbacks.on_job_end(config=config, job_return=result)
    finally:
        HydraConfig.instance().cfg = before
    return result
