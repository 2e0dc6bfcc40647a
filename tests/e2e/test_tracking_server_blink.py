"""A tracking server that blinks mid-sweep (a real ``mlflow server``, stopped while the sweep runs):
back within ``tracking.server.retry_seconds``, nothing is lost; gone for longer, each job says so in
one console line (its traceback in the job's log file) and the sweep still finishes, results kept.
Killed (``kill -9``, on PostgreSQL) while a job runs: the sweep waits once, not once a job, and
``harness sync`` completes the run the job had opened: one run per job, none left RUNNING."""

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

from harness.cli.sync import main as sync
from tests.conftest import TINY_DATASET_OVERRIDES
from tests.forkserver import popen
from tests.services import free_port, postgres, start_mlflow_server

pytestmark = pytest.mark.slow

CHUNKERS = ("none", "recursive")
# An app whose search takes 0.15 s a question (its contexts name a document: retrieval metrics).
SLOW_APP = ("app=python", "app.target=tests.apps.apps_for_tests:slow_search", "+app.params.seconds=0.15",
            "plugins.allowed_targets=[tests.apps.apps_for_tests.slow_search]")


def start_sweep(tmp_path: Path, uri: str, retry_seconds: int, *extra: str) -> subprocess.Popen:
    args = ["-m", *TINY_DATASET_OVERRIDES, f"chunker={','.join(CHUNKERS)}", "retriever=bm25", *extra,
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
    jobs = sorted(summaries(tmp_path), key=lambda j: j["job_num"])
    assert len(jobs) == len(CHUNKERS) and all(j["status"] == "FINISHED" and "tracking_error" in j for j in jobs)
    for job in jobs:
        lines = [line for line in console.splitlines() if re.search(rf"NOT LOGGED {re.escape(job['name'])}:", line)]
        assert len(lines) == 1, console[-3000:]
        assert "unreachable" in lines[0]
        # the traceback is in the job's log file
        assert "Traceback" in next(Path(job["output_dir"]).glob("*.log")).read_text()
    # one outage, one wait: by the first call that found the server gone (the sweep's power plan, or the
    # first job); the calls after the window try once
    assert console.count("is not answering; waiting up to 3 s") == 1
    assert "still unreachable (tried once" in lines[0]
    assert f"NOT LOGGED {len(CHUNKERS)} of {len(CHUNKERS)} jobs" in out
    assert f"harness sync {tmp_path / 'sweep'}" in out
    assert (tmp_path / "sweep" / "leaderboard.csv").exists()


def test_a_server_killed_mid_sweep_is_waited_for_once_and_sync_completes_the_run_it_held(tmp_path, monkeypatch,
                                                                                          capsys):
    """The server killed while job #2 runs (its run opened, RUNNING; job #1 logged by the sweep's
    process): the first call after it waits ``retry_seconds``, the later ones try once and move on;
    after ``harness sync`` each job has one run, ended, with every question's trace, job #2's the run
    it opened. Each question takes 0.15 s (an app that searches slowly), so that job #2 is still
    running when the sweep has logged job #1 (the harness launcher's worker runs the next job while
    the sweep's process logs the last)."""
    retry_seconds, questions = 8, 4
    with postgres() as database:
        artifacts, port = tmp_path / "artifacts", free_port()
        server = start_mlflow_server(database, artifacts, port)
        sweep = start_sweep(tmp_path, server.uri, retry_seconds, "retriever.k1=0.9,1.2", *SLOW_APP)  # 4 jobs
        logged = tmp_path / "sweep" / "0" / "summary.json"  # job #1 logged
        opened = tmp_path / "sweep" / "1" / "tracker_run.json"  # job #2 has opened its run
        try:
            deadline = time.monotonic() + 300
            while not (opened.exists() and logged.exists()):
                assert sweep.poll() is None and time.monotonic() < deadline, sweep.communicate()
                time.sleep(0.02)
            server.kill()
            assert not (tmp_path / "sweep" / "1" / "summary.json").exists()  # job #2 still running
            killed = time.monotonic()
            out, err = sweep.communicate(timeout=600)
            after_kill = time.monotonic() - killed
        finally:
            sweep.kill()
            server.stop()
        console = out + err
        assert sweep.returncode == 1, console[-3000:]
        assert "Traceback" not in console
        # One wait for the outage, not one a job (four windows: over 32 s). The first call after the
        # kill is the sweep's process logging job #2, on a connection the kill cut: MLflow's own HTTP
        # retries (tracking.server.max_retries 2, backoff 1) take ~5 s before the outage is seen, then
        # the window, whose last call again runs its retries: 18.9-21.2 s after the kill, measured.
        assert after_kill < 3 * retry_seconds, (after_kill, console[-3000:])
        assert console.count("is not answering; waiting up to") == 1
        jobs = sorted(summaries(tmp_path), key=lambda j: j["job_num"])
        assert len(jobs) == 4 and all(j["status"] == "FINISHED" for j in jobs)
        assert jobs[0].get("run_id") and not any(j.get("run_id") for j in jobs[1:])
        for job in jobs[1:]:
            lines = [line for line in console.splitlines() if f"NOT LOGGED {job['name']}:" in line]
            assert len(lines) == 1, console[-3000:]
        assert f"unreachable for {retry_seconds} s" in next(line for line in console.splitlines()
                                                          if f"NOT LOGGED {jobs[1]['name']}:" in line)
        # logged by the sweep's process, its traceback is in the job's own log file all the same
        job_log = next(Path(jobs[1]["output_dir"]).glob("*.log")).read_text()
        assert f"tracking failed for {jobs[1]['name']}" in job_log and "Traceback" in job_log
        assert sum("still unreachable (tried once" in line for line in console.splitlines()) >= 2
        held = json.loads(opened.read_text())["run_id"]
        client = MlflowClient(database)
        assert client.get_run(held).info.status == "RUNNING"  # what the server kept of job #2

        server = start_mlflow_server(database, artifacts, port)  # back, on its old address
        for name in ("MLFLOW_HTTP_REQUEST_MAX_RETRIES", "MLFLOW_HTTP_REQUEST_BACKOFF_FACTOR",
                     "MLFLOW_HTTP_REQUEST_TIMEOUT"):  # what the tracker sets here, undone after the test
            monkeypatch.delenv(name, raising=False)
        try:
            first, second = harness_sync(tmp_path, capsys), harness_sync(tmp_path, capsys)
        finally:
            server.stop()
        names = {job["name"]: job for job in jobs}
        report = [line for line in first.splitlines() if line.split(" ", 1)[0] in
                  ("created", "completed", "logged", "Total:")]
        assert len(report) == 5, first
        assert report[0] == f"logged before {jobs[0]['name']}: run {jobs[0]['run_id']} FINISHED; " \
                            "0 metrics, 0 tables, 0 traces"
        assert re.fullmatch(rf"completed {re.escape(jobs[1]['name'])}: run {held} FINISHED, was RUNNING; "
                            rf"\d+ metrics, 1 table, {questions} traces", report[1])
        for line, job in zip(report[2:4], jobs[2:]):
            assert re.fullmatch(rf"created {re.escape(job['name'])}: run [0-9a-f]{{32}} FINISHED; "
                                rf"\d+ metrics, 1 table, {questions} traces", line)
        assert re.fullmatch(r"Total: 4 run\(s\) under parent [0-9a-f]{32} \(2 created, 1 completed, 1 logged "
                            rf"before\); \d+ metrics, 3 tables, {3 * questions} traces written", report[4])
        assert "Total: 4 run(s)" in second and "(0 created, 0 completed, 4 logged before); " \
            "0 metrics, 0 tables, 0 traces written" in second

        runs = client.search_runs([client.get_experiment_by_name("blink").experiment_id])
        parent, = [r for r in runs if r.data.tags.get("harness.role") == "sweep"]
        children = [r for r in runs if r.data.tags.get("mlflow.parentRunId") == parent.info.run_id]
        assert len(runs) == 1 + len(jobs) and parent.info.status == "FINISHED"
        synced = sorted(summaries(tmp_path), key=lambda j: j["job_num"])
        assert sorted(r.info.run_id for r in children) == sorted(j["run_id"] for j in synced)
        assert synced[1]["run_id"] == held
        for child in children:
            assert child.info.status == "FINISHED" and "retrieval/mrr" in child.data.metrics
            assert child.info.run_name in names
            traces = client.search_traces(locations=[child.info.experiment_id], run_id=child.info.run_id,
                                          max_results=100)
            assert sorted(t.info.tags["harness.question_id"] for t in traces) == sorted(
                json.loads(line)["question_id"] for line in
                (Path(names[child.info.run_name]["output_dir"]) / "per_question.jsonl").read_text().splitlines())


def harness_sync(tmp_path: Path, capsys) -> str:
    """``harness sync`` of the sweep in this process (the tracker its multirun.yaml names); its console."""
    capsys.readouterr()
    assert sync([str(tmp_path / "sweep")]) == 0, capsys.readouterr()
    return capsys.readouterr().out
