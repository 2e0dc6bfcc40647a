"""The Hydra task: ``harness [overrides]`` runs one job, ``harness -m ...`` a sweep.

The task function only instantiates the configured parts and runs the pipeline; tracking
happens in :class:`harness.tracking.sweep.callback.TrackingCallback`.
"""

from __future__ import annotations

import logging
import random
import warnings
from pathlib import Path

import hydra
from hydra.core.hydra_config import HydraConfig
from hydra.types import RunMode
from omegaconf import DictConfig

from harness.cache import DiskCache
from harness.config import register
from harness.config.resolvers import PROJECT_ROOT
from harness.failures import failure_line
from harness.jobs import build_job, checked_in_this_process, parts_of_this_process
from harness.stages.pipeline import run_pipeline
from harness.results.records import RunResult
from harness.tracking.outcome import JobOutcome
from harness.tracking.sweep.search import objective_values
from harness.tracking.sweep.state import finished_job

log = logging.getLogger("harness")
CONFIG_DIR = PROJECT_ROOT / "conf"
register()
# conf/hydra/launcher/ray.yaml extends the Ray plugin's schema of the same name on purpose (it adds
# typed `init` keys such as num_cpus); Hydra merges the two and warns that this is deprecated.
# Hydra's message starts with a newline, which the pattern (matched from the start) must allow.
warnings.filterwarnings("ignore", message=r"\s*'hydra/launcher/ray' is validated against ConfigStore schema")
# conf/hydra/sweeper/basic.yaml likewise names the harness's subclass of Hydra's basic sweeper.
warnings.filterwarnings("ignore", message=r"\s*'hydra/sweeper/basic' is validated against ConfigStore schema")


def run_from_config(cfg: DictConfig, sweep: str | None = None, checked: bool = False) -> RunResult:
    """Builds every configured part and runs the pipeline (no Hydra runtime needed).

    Args:
        sweep: the folder of the sweep the job is part of (or of the single run): parts an earlier
            job of the sweep built in this process from the same config (the start check's
            included) are not built again.
        checked: the start check passed this config in this process (see build_job).
    """
    _seed_everything(cfg.seed)
    # checks the config first: a sweep's own values (`chunker._target_=a,b`) reach only the job
    job = build_job(cfg, parts_of_this_process(sweep) if sweep is not None else None, checked)
    cache = DiskCache(cfg.cache.dir, enabled=cfg.cache.enabled)
    return run_pipeline(job.dataset, job.chunker, job.retriever, job.suites, cache, job.answering, job.judging,
                        router=job.router, reranker=job.reranker, app=job.app)


def task(cfg: DictConfig) -> JobOutcome:
    """One job, run by Hydra for the CLI and for the Python API (:mod:`harness.api`) alike.

    A failure becomes a FAILED outcome (traceback kept) so a sweep goes on. The outcome reads as
    the value(s) of ``objectives`` (``float(outcome)``), which is what a search sweeper optimises.
    """
    outcome = _run_task(cfg)
    if not outcome.failed:
        metrics = outcome.previous["metrics"] if outcome.previous is not None else outcome.result.metrics
        outcome.objectives = objective_values(cfg, metrics)
    return outcome


def _run_task(cfg: DictConfig) -> JobOutcome:
    hydra_cfg = HydraConfig.get()
    output_dir = Path(hydra_cfg.runtime.output_dir)
    multirun = hydra_cfg.mode == RunMode.MULTIRUN
    if multirun:
        previous = finished_job(Path(hydra_cfg.sweep.dir), output_dir, list(hydra_cfg.overrides.task))
        if previous is not None:  # a resumed sweep: this job finished before the interruption
            log.info("kept from before the interruption: %s", previous["name"])
            return JobOutcome(status="FINISHED", output_dir=output_dir, previous=previous)
    try:
        folder = str(hydra_cfg.sweep.dir if multirun else hydra_cfg.run.dir)
        # hydra.job.env_set is set for the job alone: a job with one is checked again, in its environment
        checked = not hydra_cfg.job.env_set and tuple(hydra_cfg.overrides.task) in checked_in_this_process(folder)
        result = run_from_config(cfg, folder, checked)
        result.write(output_dir)
        if result.info.get("failed_because"):  # too many failed calls: measured, but not a result
            outcome = JobOutcome.from_failures(result, output_dir)
            log.error("job failed: %s", outcome.message)
            return outcome
        failed = failure_line(result.info.get("failures"))
        if failed is not None:  # counted in its results; said on the console, where the job's lines are read
            log.warning("%s", failed)
        return JobOutcome(status="FINISHED", output_dir=output_dir, result=result)
    except Exception as err:
        outcome = JobOutcome.from_exception(err, output_dir)
        output_dir.mkdir(parents=True, exist_ok=True)
        (output_dir / "traceback.txt").write_text(outcome.error)
        log.error("job failed: %s (traceback: %s)", outcome.message, output_dir / "traceback.txt")
        return outcome


# An absolute path: a relative one resolves differently under `python -m harness` and the console script.
main = hydra.main(version_base="1.3", config_path=str(CONFIG_DIR), config_name="config")(task)


def _seed_everything(seed: int) -> None:
    import numpy as np

    random.seed(seed)
    np.random.seed(seed)
