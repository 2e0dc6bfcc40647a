"""A tracking server that blinks mid-sweep (a real ``mlflow server``, stopped while the sweep runs):
back within ``tracking.server.retry_seconds``, nothing is lost; gone for longer, each job says so in
one console line (its traceback in the job's log file) and the sweep still finishes, results kept."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
from mlflow.tracking import MlflowClient

from tests.conftest import TINY_DATASET_OVERRIDES
from tests.forkserver import popen
from tests.services import free_port, start_mlflow_server

pytestmark = pytest.mark.slow

CHUNKERS = ("none", "recursive")


def start_sweep(tmp_path: Path, uri: str, retry_seconds: int) -> subprocess.Popen:
    args = ["-m", *TINY_DATASET_OVERRIDES, f"chunker={','.join(CHUNKERS)}", "retriever=bm25",
            f"tracking.tracking_uri={uri}", "tracking.artifact_location=null",
            f"tracking.server.retry_seconds={retry_seconds}", f"cache.dir={tmp_path / 'cache'}",
            f"hydra.sweep.dir={tmp_path / 'sweep'}", "experiment_name=blink"]
    environment = {**os.environ, "HF_HUB_OFFLINE": "1", "PYTHONWARNINGS": "ignore"}
    return popen([sys.executable, "-m", "harness", *args], cwd=tmp_path, env=environment)


def wait_for_parent(sweep: subprocess.Popen, tmp_path: Path) -> None:
    state = tmp_path / "sweep" / ".harness_sweep.json"
    deadline = time.monotonic() + 300
    while not (state.exists() and json.loads(state.read_text()).get("parent_run_id")):
        assert sweep.poll() is None and time.monotonic() < deadline, sweep.communicate()
        time.sleep(0.05)


def summaries(tmp_path: Path) -> list[dict]:
    return [json.loads(p.read_text()) for p in (tmp_path / "sweep").glob("*/summary.json")]


def test_a_server_back_within_the_window_loses_nothing(tmp_path):
    store, artifacts, port = f"sqlite:///{tmp_path / 'mlflow.db'}", tmp_path / "artifacts", free_port()
    server = start_mlflow_server(store, artifacts, port)
    sweep = start_sweep(tmp_path, server.uri, retry_seconds=240)
    try:
        wait_for_parent(sweep, tmp_path)
        server.stop()
        time.sleep(3)  # the first job finishes meanwhile and waits for the server
        server = start_mlflow_server(store, artifacts, port)
        out, err = sweep.communicate(timeout=600)
    finally:
        sweep.kill()
        server.stop()
    assert sweep.returncode == 0, out[-3000:] + err[-3000:]
    assert "NOT LOGGED" not in out + err and "Traceback" not in out + err
    jobs = summaries(tmp_path)
    assert len(jobs) == len(CHUNKERS) and all(j["status"] == "FINISHED" and j.get("run_id") for j in jobs)
    client = MlflowClient(store)
    runs = client.search_runs([client.get_experiment_by_name("blink").experiment_id])
    children = [r for r in runs if "mlflow.parentRunId" in r.data.tags]
    assert sorted(r.info.run_id for r in children) == sorted(j["run_id"] for j in jobs)
    assert all(r.info.status == "FINISHED" and "retrieval/mrr" in r.data.metrics for r in children)
    parent, = [r for r in runs if r.data.tags.get("harness.role") == "sweep"]
    assert parent.info.status == "FINISHED" and parent.data.metrics["sweep/jobs"] == len(CHUNKERS)


def test_a_longer_outage_costs_one_line_per_job_and_keeps_the_results(tmp_path):
    server = start_mlflow_server(f"sqlite:///{tmp_path / 'mlflow.db'}", tmp_path / "artifacts")
    sweep = start_sweep(tmp_path, server.uri, retry_seconds=3)
    try:
        wait_for_parent(sweep, tmp_path)
        server.stop()
        out, err = sweep.communicate(timeout=600)
    finally:
        sweep.kill()
        server.stop()
    assert sweep.returncode == 1, out[-3000:] + err[-3000:]
    console = out + err
    assert "Traceback" not in console
    jobs = summaries(tmp_path)
    assert len(jobs) == len(CHUNKERS) and all(j["status"] == "FINISHED" and "tracking_error" in j for j in jobs)
    for job in jobs:
        lines = [line for line in console.splitlines() if re.search(rf"NOT LOGGED {re.escape(job['name'])}:", line)]
        assert len(lines) == 1, console[-3000:]
        assert "unreachable for 3 s" in lines[0]
        # the traceback is in the job's log file
        assert "Traceback" in next(Path(job["output_dir"]).glob("*.log")).read_text()
    assert f"NOT LOGGED {len(CHUNKERS)} of {len(CHUNKERS)} jobs" in out
    assert f"harness sync {tmp_path / 'sweep'}" in out
    assert (tmp_path / "sweep" / "leaderboard.csv").exists()
