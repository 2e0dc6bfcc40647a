"""End to end: real multiruns of the CLI into a temporary MLflow store."""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from mlflow.tracking import MlflowClient

from harness.data.questions_jsonl import load_questions_jsonl
from tests.conftest import PROJECT_ROOT, TINY, TINY_DATASET_OVERRIDES
from tests.forkserver import run as forked

pytestmark = pytest.mark.slow


def run_cli(tmp_path: Path, *overrides: str, multirun: bool = True,
            env: dict[str, str] | None = None, timeout: float = 600) -> subprocess.CompletedProcess:
    tracking = [] if "tracking=none" in overrides else [
        f"tracking.tracking_uri=sqlite:///{tmp_path / 'mlflow.db'}",
        f"tracking.artifact_location={tmp_path / 'mlruns'}"]
    args = [sys.executable, "-m", "harness", *(["-m"] if multirun else []), *tracking,
            f"cache.dir={tmp_path / 'cache'}",
            f"hydra.sweep.dir={tmp_path / 'sweep'}",
            f"hydra.run.dir={tmp_path / 'run'}",
            "experiment_name=e2e", *overrides]
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "PYTHONWARNINGS": "ignore", **(env or {})}
    return forked(args, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=timeout)


def runs_of(tmp_path: Path) -> tuple[MlflowClient, list]:
    client = MlflowClient(f"sqlite:///{tmp_path / 'mlflow.db'}")
    experiment = client.get_experiment_by_name("e2e")
    return client, client.search_runs([experiment.experiment_id]) if experiment else []


def split(runs: list) -> tuple[list, list]:
    parents = [r for r in runs if r.data.tags.get("harness.role") == "sweep"]
    children = [r for r in runs if "mlflow.parentRunId" in r.data.tags]
    return parents, children


def test_two_by_two_sweep_logs_parent_children_metrics_and_artifacts(tmp_path):
    done = run_cli(tmp_path, *TINY_DATASET_OVERRIDES, "chunker=none,recursive", "retriever=bm25,dense")
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    client, runs = runs_of(tmp_path)
    parents, children = split(runs)
    assert len(parents) == 1 and len(children) == 4 and len(runs) == 5
    parent = parents[0]
    assert all(c.data.tags["mlflow.parentRunId"] == parent.info.run_id for c in children)
    assert parent.info.status == "FINISHED"
    assert parent.data.metrics["sweep/jobs"] == 4 and parent.data.metrics["sweep/jobs_failed"] == 0
    assert "chunker=none,recursive" in parent.data.tags["harness.sweep_overrides"]
    assert parent.data.tags["harness.sweep_dir"] == str((tmp_path / "sweep").resolve())
    assert {a.path for a in client.list_artifacts(parent.info.run_id)} >= {
        "leaderboard.csv", "leaderboard.md", "power_plan.txt", "stats.csv", "stats_verdicts.csv", "stats.png"}
    # Other libraries' INFO/DEBUG lines stay off the console and in the jobs' log files.
    # (The console shows time and level only; the file keeps the logger's name.)
    library = [line.split("] - ", 1)[1] for log in (tmp_path / "sweep").glob("*/*.log")
               for line in log.read_text().splitlines() if "[bm25s][" in line and "] - " in line]
    assert library and not any(message in done.stdout for message in library)
    assert "[INFO] " in done.stdout and "documents ->" in done.stdout
    # The hint comes last, after the leaderboard and statistics, with the exact command.
    assert done.stdout.strip().splitlines()[-1].startswith("Open the results: mlflow ui --backend-store-uri")
    # Statistics: power planning before the jobs, paired tests against the champion after them.
    assert "questions needed for d=0.2: 197, d=0.5: 32, d=0.8: 13" in done.stdout
    assert "Champion (chunker, retriever): " in done.stdout  # the brief summary: one line per challenger
    champions = [c for c in children if c.data.metrics.get("stats/is_champion") == 1.0]
    assert len(champions) == 1
    for challenger in (c for c in children if c not in champions):
        assert "stats/mean_diff/retrieval/ndcg_at_5" in challenger.data.metrics
        assert "stats/ci_low/retrieval/ndcg_at_5" in challenger.data.metrics
    # Every run is perfect on this tiny corpus: the tests say so instead of inventing a p-value.
    assert "not testable: all differences zero" in (tmp_path / "sweep" / "stats.csv").read_text()

    dataset = load_questions_jsonl("questions_jsonl", str(TINY / "questions.jsonl"), str(TINY / "docs"))
    combos = set()
    for child in children:
        assert child.info.status == "FINISHED"
        params = child.data.params
        combos.add((params["choice.chunker"], params["choice.retriever"]))
        assert params["retriever.top_k"] == "5"
        assert child.data.tags["dataset.sha256"] == dataset.sha256
        assert len(child.data.tags["mlflow.source.git.commit"]) == 40
        artifacts = {a.path for a in client.list_artifacts(child.info.run_id)}
        assert {"config.yaml", "per_question.jsonl", "per_question_table.json"} <= artifacts
        local = client.download_artifacts(child.info.run_id, "per_question.jsonl", str(tmp_path / child.info.run_id))
        rows = [json.loads(line) for line in Path(local).read_text().splitlines()]
        assert [r["question_id"] for r in rows] == [q.id for q in dataset.questions]
        for key in ("retrieval/mrr", "retrieval/ndcg_at_5", "key_facts/coverage_exact"):
            assert child.data.metrics[key] == pytest.approx(sum(r[key] for r in rows) / len(rows))
        assert all(r["retrieved_chunk_ids"] and r["gold_rank"] is not None for r in rows)
    assert combos == {("none", "bm25"), ("none", "dense"), ("recursive", "bm25"), ("recursive", "dense")}
    leaderboard = (tmp_path / "sweep" / "leaderboard.csv").read_text().splitlines()
    assert len(leaderboard) == 5 and leaderboard[0].startswith("job,run,status,retrieval/ndcg_at_5")

    # Re-running the same sweep recomputes nothing: every cached stage is a hit.
    again = run_cli(tmp_path, *TINY_DATASET_OVERRIDES, "chunker=none,recursive", "retriever=bm25,dense")
    assert again.returncode == 0, again.stderr[-3000:]
    _, runs = runs_of(tmp_path)
    newest = [r for r in split(runs)[1] if r.data.tags["mlflow.parentRunId"] != parent.info.run_id]
    assert len(newest) == 4
    assert all(not any(k.endswith("_miss") for k in r.data.metrics if k.startswith("cache/")) for r in newest)


def test_failing_job_is_logged_failed_and_the_sweep_goes_on(tmp_path):
    # Only the dense job needs the encoder, and only once it runs: its config is valid, the run fails.
    done = run_cli(tmp_path, *TINY_DATASET_OVERRIDES, "chunker=none", "retriever=bm25,dense",
                   f"models.encoder={tmp_path / 'no_such_encoder'}")
    assert done.returncode == 1
    client, runs = runs_of(tmp_path)
    parents, children = split(runs)
    assert len(parents) == 1 and len(children) == 2
    statuses = sorted(c.info.status for c in children)
    assert statuses == ["FAILED", "FINISHED"]
    failed = next(c for c in children if c.info.status == "FAILED")
    assert "no_such_encoder" in failed.data.tags["harness.error"]
    assert "traceback.txt" in {a.path for a in client.list_artifacts(failed.info.run_id)}
    assert not any(k.startswith("retrieval/") for k in failed.data.metrics)
    assert parents[0].data.metrics["sweep/jobs_failed"] == 1
    assert parents[0].data.metrics["sweep/jobs_finished"] == 1
    assert "FAILED" in done.stdout


def test_a_single_run_whose_job_fails_exits_1(tmp_path):
    # A valid config whose job fails while it runs: the dense encoder cannot be loaded. (A missing
    # predictions file is refused before the run exists: tests/e2e/test_sweep_validation.py.)
    done = run_cli(tmp_path, *TINY_DATASET_OVERRIDES, "retriever=dense", f"models.encoder={tmp_path / 'no_encoder'}",
                   "tracking=none", multirun=False)
    assert done.returncode == 1, done.stderr[-3000:]
    assert "no_encoder" in (tmp_path / "run" / "traceback.txt").read_text()
    assert json.loads((tmp_path / "run" / "summary.json").read_text())["status"] == "FAILED"


def test_malformed_dataset_stops_the_sweep_before_any_job(tmp_path):
    broken = tmp_path / "broken.jsonl"
    broken.write_text((TINY / "questions.jsonl").read_text() + "{not json\n")
    done = run_cli(tmp_path, "dataset=questions_jsonl", f"dataset.documents={TINY / 'docs'}",
                   f"dataset.questions={broken}", "retriever=bm25,dense")
    assert done.returncode != 0
    assert f"{broken}:5" in done.stderr and "not valid JSON" in done.stderr
    _, runs = runs_of(tmp_path)
    assert runs == []
    assert not list((tmp_path / "sweep").glob("*/summary.json"))


def test_malformed_dataset_stops_a_single_run_before_it_starts(tmp_path):
    broken = tmp_path / "broken.jsonl"
    broken.write_text('{"id": "a", "domain": "d", "difficulty": "tricky", "question": "q", '
                      '"ground_truth": "g", "source": "s"}\n')
    done = run_cli(tmp_path, "dataset=questions_jsonl", f"dataset.documents={TINY / 'docs'}",
                   f"dataset.questions={broken}", multirun=False)
    assert done.returncode == 2
    assert f"{broken}:1: field 'difficulty'" in done.stderr and "run not started" in done.stderr
    assert runs_of(tmp_path)[1] == []


def test_joblib_launcher_workers_nest_under_the_parent(tmp_path):
    # ~15 s; the timeout is tight because the command must end once its worker processes are stopped
    # (harness.cli.main._exit_now: skipping threading's exit hooks left it waiting for them forever)
    done = run_cli(tmp_path, *TINY_DATASET_OVERRIDES, "chunker=none", "retriever=bm25,hybrid",
                   "hydra/launcher=joblib", "hydra.launcher.n_jobs=2", timeout=240)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "database is locked" not in done.stderr  # two workers write to one SQLite store
    _, runs = runs_of(tmp_path)
    parents, children = split(runs)
    assert len(parents) == 1 and len(children) == 2
    assert {c.data.tags["mlflow.parentRunId"] for c in children} == {parents[0].info.run_id}
    assert {c.data.params["choice.retriever"] for c in children} == {"bm25", "hybrid"}


def test_single_run_logs_one_top_level_run(tmp_path):
    done = run_cli(tmp_path, *TINY_DATASET_OVERRIDES, "retriever=bm25", multirun=False)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    _, runs = runs_of(tmp_path)
    assert len(runs) == 1
    assert "mlflow.parentRunId" not in runs[0].data.tags
    assert runs[0].data.metrics["retrieval/hit_at_1"] == 1.0
    assert (tmp_path / "run" / "per_question.jsonl").exists()


def test_tracking_none_writes_results_only_to_the_job_folder(tmp_path):
    done = run_cli(tmp_path, *TINY_DATASET_OVERRIDES, "retriever=bm25", "tracking=none", multirun=False)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert not (tmp_path / "mlflow.db").exists()
    metrics = json.loads((tmp_path / "run" / "metrics.json").read_text())["metrics"]
    assert metrics["retrieval/hit_at_1"] == 1.0


def test_a_sweep_without_tracking_exits_zero_and_keeps_its_results(tmp_path):
    # tracking=none: no job has a run id, and none was meant to; that is not "not logged".
    done = run_cli(tmp_path, *TINY_DATASET_OVERRIDES, "chunker=none,recursive", "retriever=bm25", "tracking=none")
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "NOT LOGGED" not in done.stdout + done.stderr and "harness sync" not in done.stdout
    with open(tmp_path / "sweep" / "leaderboard.csv") as board:
        assert [row["status"] for row in csv.DictReader(board)] == ["FINISHED", "FINISHED"]
    assert not (tmp_path / "mlflow.db").exists() and not (tmp_path / "mlruns").exists()
