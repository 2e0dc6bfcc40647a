"""The Python API runs the same pipeline as the CLI: same metrics, a logged MLflow run."""

from __future__ import annotations

import json
import math

import pytest
from mlflow.tracking import MlflowClient

from harness.api import evaluate, sweep
from tests.conftest import TINY_DATASET_OVERRIDES
from tests.e2e.test_sweep import run_cli

pytestmark = pytest.mark.slow


def _overrides(tmp_path, run_dir: str) -> list[str]:
    return [*TINY_DATASET_OVERRIDES, f"tracking.tracking_uri=sqlite:///{tmp_path / 'mlflow.db'}",
            f"tracking.artifact_location={tmp_path / 'mlruns'}", f"cache.dir={tmp_path / 'cache'}",
            f"hydra.run.dir={tmp_path / run_dir}", f"hydra.sweep.dir={tmp_path / 'api_sweep'}",
            "experiment_name=e2e", "retriever=bm25", "chunker=recursive"]


def test_evaluate_returns_the_cli_metrics_and_the_logged_run(tmp_path, monkeypatch):
    done = run_cli(tmp_path, *TINY_DATASET_OVERRIDES, "retriever=bm25", "chunker=recursive", multirun=False)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    cli_metrics = json.loads((tmp_path / "run" / "metrics.json").read_text())["metrics"]

    monkeypatch.chdir(tmp_path)
    result = evaluate(_overrides(tmp_path, "api_run"))
    assert result.metrics.keys() == cli_metrics.keys()
    for key, value in cli_metrics.items():
        assert result.metrics[key] == pytest.approx(value, nan_ok=True), key
    assert result.name == json.loads((tmp_path / "run" / "summary.json").read_text())["name"]
    frame = result.to_pandas()
    assert len(frame) == 4 and set(frame["question_id"]) == {row["question_id"] for row in result.rows}

    run = MlflowClient(f"sqlite:///{tmp_path / 'mlflow.db'}").get_run(result.run_id)
    assert run.info.run_name == result.name
    logged = run.data.metrics["retrieval/mrr"]
    assert math.isclose(logged, cli_metrics["retrieval/mrr"])


def test_sweep_runs_every_combination_under_one_parent(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    overrides = [o for o in _overrides(tmp_path, "unused") if not o.startswith("retriever=")]
    result = sweep([*overrides, "retriever=bm25,hybrid", "stats=none"])
    assert [r.name.split(",")[-1] for r in result.runs] == ["retriever=bm25", "retriever=hybrid"]
    assert result.failed == [] and result.parent_run_id
    client = MlflowClient(f"sqlite:///{tmp_path / 'mlflow.db'}")
    for run in result.runs:
        assert client.get_run(run.run_id).data.tags["mlflow.parentRunId"] == result.parent_run_id
    assert list(result.to_pandas()["run"]) == [r.name for r in result.runs]


def test_a_sweep_with_a_failed_job_returns_it_instead_of_exiting(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    # A valid config whose job fails while it runs: the dense encoder cannot be loaded.
    overrides = [o for o in _overrides(tmp_path, "unused") if not o.startswith("retriever=")]
    result = sweep([*overrides, "stats=none", "retriever=dense", f"models.encoder={tmp_path / 'no_encoder'}"])
    assert result.runs == [] and len(result.failed) == 1


def test_a_sweep_that_cannot_start_is_an_error(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(RuntimeError, match="stopped before any job ran"):
        sweep([*_overrides(tmp_path, "unused"), "stats=none", "generator=predictions",
               f"generator.path={tmp_path / 'missing.jsonl'}"])
    assert not (tmp_path / "api_sweep").exists()


def test_evaluate_refuses_a_multirun_config(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ValueError, match="use harness.sweep"):
        evaluate(["experiment=demo_sweep", "tracking=none"])


def test_evaluate_lists_failed_gates_instead_of_exiting(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = evaluate([*_overrides(tmp_path, "gated"), "gates.rules=[{metric: retrieval/mrr, max: 0.5}]"])
    (failure,) = result.gate_failures
    assert failure == (f"gate retrieval/mrr <= 0.5 failed: run {result.name} has "
                       f"{result.metrics['retrieval/mrr']:.4f}")
