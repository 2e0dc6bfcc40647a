"""Two sweeps started together in one folder, against one fresh store and one cache, stay apart."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from mlflow.tracking import MlflowClient

from tests.conftest import TINY_DATASET_OVERRIDES
from tests.forkserver import popen

pytestmark = pytest.mark.slow


def start_sweep(tmp_path: Path, retrievers: str) -> subprocess.Popen:
    # No hydra.sweep.dir: the default folder (date, time and a token) is what keeps them apart.
    args = [sys.executable, "-m", "harness", "-m", f"tracking.tracking_uri=sqlite:///{tmp_path / 'mlflow.db'}",
            f"tracking.artifact_location={tmp_path / 'mlruns'}", f"cache.dir={tmp_path / 'cache'}",
            "experiment_name=side", *TINY_DATASET_OVERRIDES, "chunker=none,recursive", f"retriever={retrievers}"]
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "PYTHONWARNINGS": "ignore"}
    return popen(args, cwd=tmp_path, env=env)


def test_two_sweeps_started_together_each_keep_their_own_parent_and_children(tmp_path):
    assert not (tmp_path / "mlflow.db").exists()  # both race to create the store
    first, second = start_sweep(tmp_path, "bm25"), start_sweep(tmp_path, "bm25")
    outputs = [process.communicate(timeout=600) for process in (first, second)]
    for process, (_, stderr) in zip((first, second), outputs):
        assert process.returncode == 0, stderr[-3000:]
        assert "already exists" not in stderr and "database is locked" not in stderr

    folders = sorted(p.parent for p in (tmp_path / "multirun").glob("*/*/.harness_sweep.json"))
    assert len(folders) == 2, folders
    client = MlflowClient(f"sqlite:///{tmp_path / 'mlflow.db'}")
    runs = client.search_runs([client.get_experiment_by_name("side").experiment_id])
    parents = [r for r in runs if r.data.tags.get("harness.role") == "sweep"]
    assert len(parents) == 2 and len(runs) == 6
    assert {p.data.tags["harness.sweep_dir"] for p in parents} == {str(f.resolve()) for f in folders}
    assert len({p.data.tags["harness.sweep_id"] for p in parents}) == 2
    for parent in parents:
        assert parent.info.status == "FINISHED" and parent.data.metrics["sweep/jobs"] == 2
        children = [r for r in runs if r.data.tags.get("mlflow.parentRunId") == parent.info.run_id]
        assert len(children) == 2
        assert {c.data.tags["harness.sweep_id"] for c in children} == {parent.data.tags["harness.sweep_id"]}
        assert {c.data.params["choice.chunker"] for c in children} == {"none", "recursive"}
        folder = Path(parent.data.tags["harness.sweep_dir"])
        assert {c.data.tags["harness.output_dir"] for c in children} == {str(folder / "0"), str(folder / "1")}
