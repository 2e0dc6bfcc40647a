"""A job whose worker process died, ended as the harness's task ends a job that failed.

The job's config is composed again in the launching process, given its id, number and folder as
the worker's job gives them; its folder gets ``traceback.txt`` with the reason, and the callbacks'
``on_job_end`` a ``JobReturn`` whose value is a FAILED :class:`~harness.tracking.outcome.JobOutcome`
(``on_job_start`` ran in the worker, before it died). As any failed job of the harness, it is
counted and reported with its reason, and the sweep goes on.
"""

from __future__ import annotations

import copy
import os
from pathlib import Path

from hydra.core.hydra_config import HydraConfig
from hydra.core.utils import JobReturn, JobRuntime, JobStatus
from hydra.types import HydraContext
from omegaconf import DictConfig, OmegaConf, open_dict, read_write

from harness.jobs import compositions_of_this_process
from harness.tracking.outcome import JobOutcome


class WorkerLost(RuntimeError):
    """The worker process running a job died before the job ended."""


def end_lost_job(hydra_context: HydraContext, sweep_config: DictConfig, number: int, overrides: list[str],
                 error: BaseException) -> JobReturn:
    composed = compositions_of_this_process(str(sweep_config.hydra.sweep.dir), hydra_context.config_loader)
    config = composed(sweep_config, list(overrides))
    with open_dict(config):
        config.hydra.job.id = number
        config.hydra.job.num = number
    before = HydraConfig.instance().cfg
    HydraConfig.instance().set_config(config)  # the folder's interpolations may read it (${hydra:job.id})
    output_dir = os.path.abspath(os.path.join(str(OmegaConf.select(config, "hydra.sweep.dir")),
                                              str(OmegaConf.select(config, "hydra.sweep.subdir"))))
    with read_write(config.hydra.runtime), open_dict(config.hydra.runtime):
        config.hydra.runtime.output_dir = output_dir
    outcome = JobOutcome.from_exception(error, Path(output_dir))
    Path(output_dir).mkdir(parents=True, exist_ok=True)
    (Path(output_dir) / "traceback.txt").write_text(outcome.error)
    HydraConfig.instance().set_config(config)
    task = copy.deepcopy(config)
    with read_write(task), open_dict(task):
        del task["hydra"]
    try:
        result = JobReturn(overrides=list(config.hydra.overrides.task), cfg=task,
                           hydra_cfg=copy.deepcopy(HydraConfig.instance().cfg), working_dir=os.getcwd(),
                           task_name=JobRuntime.instance().get("name"), status=JobStatus.COMPLETED,
                           _return_value=outcome)
        hydra_context.callbacks.on_job_end(config=config, job_return=result)
    finally:
        if before is not None:  # Hydra's config of the launching process again
            HydraConfig.instance().set_config(before)
    return result
