"""One job in the worker, step for step as Hydra's :func:`hydra.core.utils.run_job` runs it.

The same steps in the same order, on Hydra's public API: Hydra's config of the job set for the
job's interpolations, its folder made (and entered when ``hydra.job.chdir``), its log set up, its
``.hydra/config.yaml``, ``hydra.yaml`` and ``overrides.yaml`` written as Hydra writes them, the
callbacks' ``on_job_start``, the task function on the task's config, ``on_job_end`` with the
``JobReturn``, and Hydra's config of the launcher's process restored. One difference: the task's
config may be given, a race's next round continuing the config of the round before
(:func:`harness.config.composition.next_round`), where ``run_job`` always copies the job's whole
config and drops its ``hydra`` node (a copy of ~20 ms a job).
"""

from __future__ import annotations

import contextlib
import copy
import logging
import os
from pathlib import Path

from hydra import version
from hydra.core.hydra_config import HydraConfig
from hydra.core.utils import JobReturn, JobRuntime, JobStatus, configure_log, env_override
from hydra.types import HydraContext, TaskFunction
from omegaconf import DictConfig, OmegaConf, open_dict, read_write


def run_job(hydra_context: HydraContext, task_function: TaskFunction, config: DictConfig,
            task_config: DictConfig | None = None) -> JobReturn:
    """The job of ``config`` (Hydra's config of the job, with its ``hydra`` node), in the sweep's folder.

    Args:
        task_config: the task's config, equal to ``config`` without its ``hydra`` node (a copy is
            made when none is given): the task function gets it, and the job's ``JobReturn`` holds it.
    """
    callbacks = hydra_context.callbacks
    old_cwd = os.getcwd()
    before = HydraConfig.instance().cfg
    HydraConfig.instance().set_config(config)  # the folder's interpolations may read it (${hydra:job.id})
    output_dir = job_folder(config)
    HydraConfig.instance().set_config(config)
    chdir = False
    try:
        result = JobReturn()
        result.cfg = task_config if task_config is not None else task_config_of(config)
        result.hydra_cfg = copy.deepcopy(HydraConfig.instance().cfg)
        result.overrides = OmegaConf.to_container(config.hydra.overrides.task)
        Path(output_dir).mkdir(parents=True, exist_ok=True)
        chdir = result.hydra_cfg.hydra.job.chdir
        if chdir is None:  # as run_job: from version_base 1.2 on (the harness's: 1.3) the job stays where it started
            chdir = not version.base_at_least("1.2")
        if chdir:
            os.chdir(output_dir)
        result.working_dir = output_dir if chdir else os.getcwd()
        configure_log(config.hydra.job_logging, config.hydra.verbose)
        if config.hydra.output_subdir is not None:
            folder = Path(config.hydra.runtime.output_dir) / str(config.hydra.output_subdir)
            folder.mkdir(parents=True, exist_ok=True)
            for name, node in (("config.yaml", result.cfg), ("hydra.yaml", result.hydra_cfg),
                               ("overrides.yaml", config.hydra.overrides.task)):
                # OmegaConf's own text, as Hydra writes it (byte for byte: the equality tests compare the files)
                (folder / name).write_text(OmegaConf.to_yaml(node), encoding="utf-8")
        with env_override(result.hydra_cfg.hydra.job.env_set):
            callbacks.on_job_start(config=config, task_function=task_function)
            try:
                result.return_value = task_function(result.cfg)
                result.status = JobStatus.COMPLETED
            except Exception as err:  # noqa: BLE001 - as run_job: a job that raises is a FAILED job
                result.return_value = err
                result.status = JobStatus.FAILED
        result.task_name = JobRuntime.instance().get("name")
        _flush_logs()
        callbacks.on_job_end(config=config, job_return=result)
        return result
    finally:
        HydraConfig.instance().cfg = before
        if chdir:
            os.chdir(old_cwd)


def _flush_logs() -> None:
    """Every log handler flushed, as Hydra's run_job flushes them before the job's end."""
    loggers = [logging.getLogger(), *(logger for logger in logging.Logger.manager.loggerDict.values()
                                      if isinstance(logger, logging.Logger))]
    for handler in {handler for logger in loggers for handler in logger.handlers}:
        with contextlib.suppress(Exception):  # as Hydra: a handler that cannot flush does not fail the job
            handler.flush()


def job_folder(config: DictConfig) -> str:
    """The job's folder as ``run_job`` names it (``hydra.sweep.dir``/``hydra.sweep.subdir``), also
    set, absolute, as ``hydra.runtime.output_dir``."""
    output_dir = os.path.join(str(OmegaConf.select(config, "hydra.sweep.dir")),
                              str(OmegaConf.select(config, "hydra.sweep.subdir")))
    with read_write(config.hydra.runtime), open_dict(config.hydra.runtime):
        config.hydra.runtime.output_dir = os.path.abspath(output_dir)
    return output_dir


def task_config_of(config: DictConfig) -> DictConfig:
    """The task's config: a copy of the job's without its ``hydra`` node, as ``run_job`` makes it."""
    task = copy.deepcopy(config)
    with read_write(task), open_dict(task):
        del task["hydra"]
    return task
