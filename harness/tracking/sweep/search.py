"""A search sweeper's result (hydra/sweeper=optuna) on the sweep's parent run.

The Optuna sweeper writes ``optimization_results.yaml`` into the sweep folder: the best trial's
parameters and value (one objective) or the Pareto front (several). The parent run gets them as
tags, with the name of the run (or runs) that trial was.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from omegaconf import OmegaConf

from harness.tracking.base import Tracker

RESULTS_FILE = "optimization_results.yaml"


def objective_values(cfg, metrics: dict[str, Any]) -> list[float]:
    """The values of ``cfg.objectives`` in a run's metrics, in order (NaN where the run has none,
    which Optuna records as a failed trial); no objectives: the primary metric, ``stats.primary.name``
    or else the first ``report.headline`` metric the run has."""
    names = list(cfg.get("objectives") or [])
    if not names:
        primary = OmegaConf.select(cfg, "stats.primary.name")
        names = [primary or next((m for m in cfg.report.headline if metrics.get(m) is not None),
                                 cfg.report.headline[0])]
    return [float("nan") if metrics.get(name) is None else float(metrics[name]) for name in names]


def best_runs(params: dict[str, Any], summaries: list[dict[str, Any]]) -> list[str]:
    """The runs whose overrides set every one of ``params`` (a trial's sampled values).

    >>> best_runs({"retriever.top_k": 5}, [{"name": "a", "overrides": ["retriever.top_k=5"]},
    ...                                    {"name": "b", "overrides": ["retriever.top_k=7"]}])
    ['a']
    """
    wanted = {f"{key}={value}" for key, value in params.items()}
    return [s["name"] for s in summaries if wanted <= {o.lstrip("+") for o in s.get("overrides", [])}]


def search_tags(results: dict[str, Any], summaries: list[dict[str, Any]]) -> dict[str, str]:
    """The parent's tags for a study's result: best value(s), parameters and run names."""
    if "best_params" in results:
        params = results["best_params"] or {}
        return {"optuna.best_value": str(results.get("best_value")),
                "optuna.best_params": " ".join(f"{k}={v}" for k, v in params.items()),
                "optuna.best_trial": ", ".join(best_runs(params, summaries))}
    front = results.get("solutions") or []
    return {"optuna.pareto_front": "; ".join(
        f"{' '.join(f'{k}={v}' for k, v in s['params'].items())} -> {s['values']}" for s in front)[:5000],
        "optuna.best_trial": ", ".join(name for s in front for name in best_runs(s["params"], summaries))}


def log_search_result(sweep_dir: Path, summaries: list[dict[str, Any]], tracker: Tracker,
                      parent_id: str | None) -> dict[str, str]:
    """Tags the parent with the study's result and prints it; nothing when no search ran."""
    path = sweep_dir / RESULTS_FILE
    if not path.is_file():
        return {}
    tags = search_tags(yaml.safe_load(path.read_text()) or {}, summaries)
    for key, value in tags.items():
        print(f"{key}: {value}")
    if parent_id:
        tracker.set_tags(parent_id, tags)
        tracker.log_files(parent_id, [path])
    return tags
