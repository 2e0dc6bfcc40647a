"""Logs a meta-evaluation report to MLflow as its own run (tag ``harness.role=meta_eval``).

The run goes to the (first) evaluated run's experiment, or, for local run folders, to the
configured experiment, and points back at the evaluated run(s) with ``harness.source_run``
(and ``harness.source_run_b`` for run B of a pairwise comparison); those runs are left untouched.
"""

from __future__ import annotations

import time
from pathlib import Path

from harness.metaeval.report import MetaEvalReport
from harness.tracking.naming import metric_name
from harness.tracking.runs import client as mlflow_client

ROLE = "meta_eval"
_MAX_METRICS_PER_BATCH = 1000  # MLflow's documented log_batch limit


def log_meta_eval(report: MetaEvalReport, tracking_uri: str, experiment_name: str,
                  artifact_location: str | None, folder: Path, params: dict[str, str]) -> tuple[str, str]:
    """Creates the run, logs metrics, params and the report's files; returns (run id, experiment id).

    The files are written to ``folder`` first, so they survive a tracking failure.
    """
    from mlflow.entities import Metric, Param

    report.write(folder)
    client = mlflow_client(tracking_uri)
    experiment_id = report.runs[0].experiment_id or _experiment(client, experiment_name, artifact_location)
    tags = {"harness.role": ROLE, "harness.meta_eval.kind": report.kind,
            "harness.labels": str(report.labels.path),
            "harness.source_table": " ".join(str(r.path) for r in report.runs)}
    for key, run in zip(("harness.source_run", "harness.source_run_b"), report.runs):
        if run.run_id:
            tags[key] = run.run_id
    name = f"meta-eval: {' vs '.join(r.name for r in report.runs)}"
    run_id = client.create_run(experiment_id, run_name=name, tags=tags).info.run_id
    status = "FAILED"
    try:
        now = int(time.time() * 1000)
        metrics = [Metric(metric_name(k), v, now, 0) for k, v in report.metrics().items()]
        for start in range(0, len(metrics), _MAX_METRICS_PER_BATCH):
            client.log_batch(run_id, metrics=metrics[start:start + _MAX_METRICS_PER_BATCH])
        client.log_batch(run_id, params=[Param(k, str(v)[:6000]) for k, v in params.items()][:100])
        client.log_artifacts(run_id, str(folder))
        status = "FINISHED"
    finally:
        client.set_terminated(run_id, status=status)
    return run_id, experiment_id


def _experiment(client, name: str, artifact_location: str | None) -> str:
    found = client.get_experiment_by_name(name)
    if found is not None:
        return found.experiment_id
    if artifact_location and "://" not in artifact_location:
        artifact_location = Path(artifact_location).resolve().as_uri()
    return client.create_experiment(name, artifact_location)
