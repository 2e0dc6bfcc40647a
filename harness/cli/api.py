"""The Python API for notebooks, ``from harness.api import evaluate, sweep`` (see :mod:`harness.api`).

Both run Hydra exactly as the ``harness`` command does (the same config composition, callbacks,
tracking and task function, :func:`harness.cli.sweep.task`); only the overrides come from a list
instead of the command line.

Example::

    from harness.api import evaluate
    result = evaluate(["retriever=dense", "tracking=none"])
    result.metrics["retrieval/ndcg_at_5"], result.run_id
    frame = result.to_pandas()  # one row per question
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness.tracking.verdicts.gating import GATES_FILE
from harness.tracking.sweep.state import JOB_SUMMARY, SWEEP_FILE

# Failed jobs are returned (Sweep.failed, RuntimeError), not turned into the command's exit status.
KEEP_GOING = "++hydra.callbacks.tracking.exit_on_failure=false"


@dataclass
class Evaluation:
    """One finished run: aggregate metrics, the per-question rows and where they were logged."""

    name: str
    metrics: dict[str, float]
    rows: list[dict[str, Any]]
    output_dir: Path
    run_id: str | None = None  # the MLflow run id (None with tracking=none)
    gate_failures: list[str] = field(default_factory=list)  # one line per failed CI gate (conf/gates/)

    def to_pandas(self):
        """The per-question table as a DataFrame (one row per question)."""
        import pandas as pd

        return pd.DataFrame(self.rows)


@dataclass
class Sweep:
    """A finished multirun: its runs in job order, the MLflow parent run and the sweep folder."""

    runs: list[Evaluation]
    sweep_dir: Path
    parent_run_id: str | None = None
    failed: list[str] = field(default_factory=list)  # names of the jobs that failed
    gate_failures: list[str] = field(default_factory=list)  # one line per failed CI gate (conf/gates/)

    def to_pandas(self):
        """The leaderboard: one row per run, one column per aggregate metric."""
        import pandas as pd

        return pd.DataFrame([{"run": run.name, **run.metrics} for run in self.runs])


def evaluate(overrides: list[str] | None = None, config_dir: str | Path | None = None) -> Evaluation:
    """Runs one configuration, like ``harness OVERRIDES``; raises RuntimeError if the job failed.
    Failed CI gates (``gates=...``) do not raise: they are listed in ``Evaluation.gate_failures``.

    Args:
        overrides: Hydra overrides, e.g. ``["retriever=dense", "retriever.top_k=10"]``.
        config_dir: a config folder replacing the project's ``conf/`` (None: the project's).
    """
    from hydra.types import RunMode

    hydra = _hydra(config_dir)
    overrides = [*(overrides or []), KEEP_GOING]
    try:
        # As Hydra's own command line does: the mode is an override unless the config sets it.
        mode = hydra.get_mode(config_name="config", overrides=overrides)
        if mode == RunMode.MULTIRUN:
            raise ValueError("these overrides select a multirun (hydra.mode=MULTIRUN); use harness.sweep()")
        overrides += ["hydra.mode=RUN"] if mode is None else []
        job = _stop_is_error(lambda: _checked(hydra, overrides) and hydra.run(
            config_name="config", task_function=_task(), overrides=overrides))
    finally:
        _clear()
    outcome = job.return_value
    if outcome.failed:
        raise RuntimeError(f"the run failed: {outcome.message} (traceback: {outcome.output_dir / 'traceback.txt'})")
    return _evaluation(outcome.output_dir, outcome.result)


def sweep(overrides: list[str] | None = None, config_dir: str | Path | None = None) -> Sweep:
    """Runs a multirun, like ``harness -m OVERRIDES``; failed jobs are listed in ``Sweep.failed``.

    Example: ``sweep(["retriever=bm25,dense", "chunker=recursive"])``.
    """
    from hydra.core.utils import JobReturn
    from hydra.types import RunMode

    hydra = _hydra(config_dir)
    overrides = [*(overrides or []), KEEP_GOING]
    try:
        if hydra.get_mode(config_name="config", overrides=overrides) != RunMode.MULTIRUN:
            overrides.append("hydra.mode=MULTIRUN")
        returns = _stop_is_error(lambda: _checked(hydra, overrides) and hydra.multirun(
            config_name="config", task_function=_task(), overrides=overrides))
    finally:
        _clear()
    jobs = [job for batch in returns for job in (batch if isinstance(batch, list) else [batch])
            if isinstance(job, JobReturn)]
    runs, failed, sweep_dir = [], [], None
    for job in jobs:
        output_dir = Path(job.hydra_cfg.hydra.runtime.output_dir)
        sweep_dir = Path(job.hydra_cfg.hydra.sweep.dir)
        outcome = job._return_value
        if getattr(outcome, "result", None) is None:
            failed.append(job.hydra_cfg.hydra.job.override_dirname or str(output_dir))
            continue
        runs.append(_evaluation(output_dir, outcome.result))
    state = json.loads((sweep_dir / SWEEP_FILE).read_text()) if sweep_dir and (sweep_dir / SWEEP_FILE).exists() else {}
    return Sweep(runs=runs, sweep_dir=sweep_dir, parent_run_id=state.get("parent_run_id"), failed=failed,
                 gate_failures=_gate_failures(sweep_dir))


def _evaluation(output_dir: Path, result) -> Evaluation:
    summary_path = output_dir / JOB_SUMMARY
    summary = json.loads(summary_path.read_text()) if summary_path.exists() else {}
    return Evaluation(name=summary.get("name", ""), metrics=dict(result.metrics), rows=result.rows,
                      output_dir=output_dir, run_id=summary.get("run_id"), gate_failures=_gate_failures(output_dir))


def _gate_failures(folder: Path | None) -> list[str]:
    """The failed gates a run or sweep wrote (harness.tracking.verdicts.gating); a sweep's runs have none of their own."""
    path = folder / GATES_FILE if folder else None
    return path.read_text().splitlines() if path and path.exists() else []


def _task():
    from harness.cli.sweep import task

    return task


def _hydra(config_dir: str | Path | None):
    from hydra._internal.hydra import Hydra
    from hydra._internal.utils import create_config_search_path
    from hydra.core.global_hydra import GlobalHydra

    from harness.cli.sweep import CONFIG_DIR

    GlobalHydra.instance().clear()
    folder = Path(config_dir).resolve() if config_dir is not None else CONFIG_DIR
    if not folder.is_dir():
        raise FileNotFoundError(f"config folder {folder} not found")
    # task_name "sweep": the name the console script's Hydra gives its jobs (log file sweep.log).
    return Hydra.create_main_hydra2(task_name="sweep", config_search_path=create_config_search_path(str(folder)))


def _checked(hydra, overrides: list[str]) -> bool:
    """True once the config the call runs passed the check of its targets (harness.cli.start_check),
    made before Hydra creates its callbacks and sets up its logging; else SystemExit(2)."""
    from harness.cli.start_check import check_call

    check_call(hydra, "config", overrides)
    return True


def _clear() -> None:
    from hydra.core.global_hydra import GlobalHydra

    GlobalHydra.instance().clear()


def _stop_is_error(run):
    # The callbacks end the command with SystemExit when nothing may start (an invalid dataset);
    # in a notebook that becomes an exception.
    try:
        return run()
    except SystemExit as err:
        raise RuntimeError(f"harness stopped before any job ran (exit status {err.code}); see stderr") from err
