"""A real tracking server: ``mlflow server`` on PostgreSQL, artifacts proxied, started for these tests.

A sweep with the joblib launcher logs to it; everything is read back through the server's REST API;
``harness compare``, ``annotate`` and ``meta-eval`` find it through the tracking config or
MLFLOW_TRACKING_URI. An unreachable server stops a sweep in seconds, before any job.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
import requests
from mlflow.tracking import MlflowClient

from harness.cli.annotate import main as annotate
from harness.cli.compare import main as compare
from harness.cli.meta_eval import main as meta_eval
from tests.conftest import TINY_DATASET_OVERRIDES
from tests.forkserver import popen
from tests.forkserver import run as forked
from tests.services import mlflow_server, postgres, start_mlflow_server

pytestmark = pytest.mark.slow

ANSWERS = {"t1": "3600 seconds", "t2": "100 connections per region", "t3": "100 requests per minute",
           "t4": "one day"}


@pytest.fixture(scope="module")
def database():
    with postgres() as uri:
        yield uri


@pytest.fixture(scope="module")
def artifacts(tmp_path_factory):
    return tmp_path_factory.mktemp("server") / "artifacts"


@pytest.fixture(scope="module")
def server(database, artifacts):
    with mlflow_server(database, artifacts) as uri:
        yield uri


@pytest.fixture(autouse=True)
def _isolated_env(monkeypatch):
    # The tracker sets MLflow's HTTP retry settings with setdefault (from conf/tracking/mlflow.yaml);
    # undoing these removes what it set, so later tests start without them.
    for name in ("MLFLOW_HTTP_REQUEST_MAX_RETRIES", "MLFLOW_HTTP_REQUEST_BACKOFF_FACTOR", "MLFLOW_HTTP_REQUEST_TIMEOUT"):
        monkeypatch.delenv(name, raising=False)


def harness(cwd: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    environment = {**os.environ, "HF_HUB_OFFLINE": "1", "PYTHONWARNINGS": "ignore", **(env or {})}
    return forked([sys.executable, "-m", "harness", *args], cwd=cwd, env=environment,
                  capture_output=True, text=True, timeout=900)


def sweep_args(tmp_path: Path, uri: str, *extra: str) -> list[str]:
    preds = tmp_path / "preds.jsonl"
    preds.write_text("".join(json.dumps({"question_id": q, "answer": a}) + "\n" for q, a in ANSWERS.items()))
    return ["-m", *TINY_DATASET_OVERRIDES, "chunker=none", "retriever=bm25,dense", "generator=predictions",
            f"generator.path={preds}", "metrics.answer.bertscore=null", f"tracking.tracking_uri={uri}",
            "tracking.artifact_location=null", f"cache.dir={tmp_path / 'cache'}", f"hydra.sweep.dir={tmp_path / 'sweep'}",
            "experiment_name=e2e", *extra]


def rest(uri: str, endpoint: str, payload: dict | None = None, **params: str):
    """GET (with query parameters) or POST (with a JSON body) to the server's REST API."""
    url = f"{uri}/api/2.0/mlflow/{endpoint}"
    answer = requests.post(url, json=payload, timeout=30) if payload is not None else requests.get(url, params=params, timeout=30)
    answer.raise_for_status()
    return answer.json()


def runs_over_rest(uri: str, experiment: str) -> list[dict]:
    experiment_id = rest(uri, "experiments/get-by-name", experiment_name=experiment)["experiment"]["experiment_id"]
    return rest(uri, "runs/search", {"experiment_ids": [experiment_id], "max_results": 1000}).get("runs", [])


def tags(run: dict) -> dict[str, str]:
    return {t["key"]: t["value"] for t in run["data"].get("tags", [])}


def metrics(run: dict) -> dict[str, float]:
    return {m["key"]: m["value"] for m in run["data"].get("metrics", [])}


def artifact_text(uri: str, run_id: str, path: str) -> str:
    answer = requests.get(f"{uri}/get-artifact", params={"run_uuid": run_id, "path": path}, timeout=30)
    answer.raise_for_status()
    return answer.text


def traced_questions(uri: str, run: dict) -> list[str]:
    """The questions of the run's traces, read through the server, each with its spans and assessments."""

    traces = MlflowClient(uri).search_traces(locations=[run["info"]["experiment_id"]], run_id=run["info"]["run_id"],
                                             max_results=100)
    assert all(len(t.data.spans) >= 3 and t.info.assessments for t in traces)
    return sorted(t.info.tags["harness.question_id"] for t in traces)


def test_a_joblib_sweep_logs_to_the_server_and_the_subcommands_read_it(server, tmp_path, monkeypatch, capsys):
    done = harness(tmp_path, *sweep_args(tmp_path, server, "hydra/launcher=joblib", "hydra.launcher.n_jobs=2"))
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]

    runs = runs_over_rest(server, "e2e")
    parents = [r for r in runs if tags(r).get("harness.role") == "sweep"]
    children = [r for r in runs if "mlflow.parentRunId" in tags(r)]
    assert len(parents) == 1 and len(children) == 2 and len(runs) == 3
    parent_id = parents[0]["info"]["run_id"]
    assert parents[0]["info"]["status"] == "FINISHED" and metrics(parents[0])["sweep/jobs"] == 2
    assert artifact_text(server, parent_id, "leaderboard.csv").startswith("job,run,status")
    for child in children:
        assert tags(child)["mlflow.parentRunId"] == parent_id and child["info"]["status"] == "FINISHED"
        folder = Path(tags(child)["harness.output_dir"])
        local = json.loads((folder / "metrics.json").read_text())["metrics"]
        logged = metrics(child)
        for key in ("retrieval/mrr", "retrieval/ndcg_at_5", "answer/f1", "answer/em"):
            assert logged[key] == pytest.approx(local[key])
        listed = {f["path"] for f in rest(server, "artifacts/list", run_id=child["info"]["run_id"])["files"]}
        assert {"config.yaml", "per_question.jsonl", "per_question_table.json"} <= listed
        assert artifact_text(server, child["info"]["run_id"], "per_question.jsonl") == (folder / "per_question.jsonl").read_text()
        assert traced_questions(server, child) == sorted(ANSWERS)  # spans through the server's OTLP endpoint

    # The subcommands take the store from --tracking-uri, or the tracking config: MLFLOW_TRACKING_URI.
    monkeypatch.chdir(tmp_path)
    a, b = (c["info"]["run_id"] for c in children)
    assert compare([a, b, "--tracking-uri", server]) == 0
    monkeypatch.setenv("MLFLOW_TRACKING_URI", server)
    assert compare(["--experiment", "e2e"]) == 0
    assert annotate(["export", a, "--strategy", "random", "--n", "4", "--out", str(tmp_path / "sheet.csv")]) == 0
    assert (tmp_path / "sheet.csv").read_text(encoding="utf-8-sig").count("\nt") == 4
    labels = tmp_path / "labels.jsonl"
    labels.write_text("".join(json.dumps({"question_id": q, "annotator": "alice", "quality": score}) + "\n"
                              for q, score in zip(ANSWERS, [5, 4, 5, 1])))
    assert meta_eval([a, "--labels", str(labels), "--scale", "1", "5", "meta_eval.bootstrap.resamples=50"]) == 0
    capsys.readouterr()
    roles = sorted(tags(r).get("harness.role", "") for r in runs_over_rest(server, "e2e"))
    assert roles == ["", "", "comparison", "comparison", "meta_eval", "sweep"]


def test_an_unreachable_server_stops_the_sweep_in_seconds(tmp_path):
    # A port that accepts connections and never answers, and one where nothing listens.
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen()
        for uri in (f"http://127.0.0.1:{silent.getsockname()[1]}", "http://user:s3cret@127.0.0.1:9"):
            start = time.monotonic()
            done = harness(tmp_path, *sweep_args(tmp_path, uri))
            assert done.returncode == 2
            assert "sweep not started" in done.stderr and "unreachable" in done.stderr
            assert uri.replace("user:s3cret@", "") in done.stderr and "s3cret" not in done.stderr + done.stdout
            assert not (tmp_path / "sweep").exists() or not list((tmp_path / "sweep").glob("*/summary.json"))
            # Minutes of MLflow retries before (251 s); now the probe's 5 s plus start-up.
            assert time.monotonic() - start < 90


def test_a_server_lost_mid_sweep_keeps_the_results_and_sync_logs_them(database, artifacts, server, tmp_path):
    # A second server on the same database: it dies once the sweep has its parent run.
    doomed = start_mlflow_server(database, artifacts)
    args = sweep_args(tmp_path, doomed.uri, "experiment_name=lost", "tracking.server.retry_seconds=2")
    environment = {**os.environ, "HF_HUB_OFFLINE": "1", "PYTHONWARNINGS": "ignore"}
    sweep = popen([sys.executable, "-m", "harness", *args], cwd=tmp_path, env=environment)
    state = tmp_path / "sweep" / ".harness_sweep.json"
    try:
        deadline = time.monotonic() + 300
        while not (state.exists() and json.loads(state.read_text()).get("parent_run_id")):
            assert sweep.poll() is None and time.monotonic() < deadline, sweep.communicate()
            time.sleep(0.05)
    finally:
        doomed.stop()
    out, err = sweep.communicate(timeout=900)
    assert sweep.returncode == 1, err[-3000:]
    assert "NOT LOGGED" in out and f"harness sync {tmp_path / 'sweep'}" in out
    summaries = [json.loads(p.read_text()) for p in (tmp_path / "sweep").glob("*/summary.json")]
    assert len(summaries) == 2 and all(s["status"] == "FINISHED" for s in summaries)
    assert any("tracking_error" in s for s in summaries)
    parent_id = json.loads(state.read_text())["parent_run_id"]

    # Back on a live server (same database): the missing jobs join the same parent, once.
    for attempt in range(2):
        done = harness(tmp_path, "sync", str(tmp_path / "sweep"), f"tracking.tracking_uri={server}")
        assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
        runs = runs_over_rest(server, "lost")
        parents = [r for r in runs if tags(r).get("harness.role") == "sweep"]
        children = [r for r in runs if "mlflow.parentRunId" in tags(r)]
        assert [p["info"]["run_id"] for p in parents] == [parent_id]
        assert parents[0]["info"]["status"] == "FINISHED" and metrics(parents[0])["sweep/jobs"] == 2
        assert len(children) == 2 and {tags(c)["mlflow.parentRunId"] for c in children} == {parent_id}
        for child in children:
            folder = Path(tags(child)["harness.output_dir"])
            local = json.loads((folder / "metrics.json").read_text())["metrics"]
            assert metrics(child)["retrieval/mrr"] == pytest.approx(local["retrieval/mrr"])
            assert artifact_text(server, child["info"]["run_id"], "per_question.jsonl") == \
                (folder / "per_question.jsonl").read_text()
            assert traced_questions(server, child) == sorted(ANSWERS)  # each question once, also synced twice
        done_now = "(0 created, 0 completed, 2 logged before)" if attempt else "Total: 2 run(s)"
        assert done_now in done.stdout

    # Into a store that never saw the sweep: a new parent with both jobs.
    other = f"sqlite:///{tmp_path / 'other.db'}"
    done = harness(tmp_path, "sync", str(tmp_path / "sweep"), f"tracking.tracking_uri={other}")
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "Parent run" in done.stdout and "(2 created, 0 completed, 0 logged before)" in done.stdout


def test_a_postgresql_uri_as_mlflow_writes_it_takes_a_jobs_run_and_traces(database, tmp_path):
    """``postgresql://`` (no driver named, as in MLflow's docs): the store itself as tracking URI."""
    from harness.results.records import RunResult
    from harness.tracking.mlflow.tracker import MLflowTracker
    from harness.tracking.outcome import JobInfo, JobOutcome
    from tests.tracking.test_traces import row, stages

    assert database.startswith("postgresql://")
    tracker = MLflowTracker(database, "postgres-direct", str(tmp_path / "mlruns"), ui_hint=False, traces="auto")
    result = RunResult(dataset="tiny", dataset_sha256="abc", rows=[row("q1"), row("q2", False)], metrics={},
                       stages=stages(["q1", "q2"], {"q1"}))
    result.write(tmp_path / "job")
    info = JobInfo(name="retriever=bm25", choices={}, overrides=[], params={}, config_yaml="")
    run_id = tracker.log_job(JobOutcome(status="FINISHED", output_dir=tmp_path / "job", result=result), info, None)
    assert tracker.flush() == []
    client = MlflowClient(database)
    found = client.search_traces(locations=[client.get_run(run_id).info.experiment_id], run_id=run_id)
    assert sorted(t.info.tags["harness.question_id"] for t in found) == ["q1", "q2"]
    assert all(t.data.spans and t.info.assessments for t in found)
