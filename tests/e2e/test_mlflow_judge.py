"""judge=mlflow end to end: a run of the tiny dataset judged by MLflow's Correctness scorer and
RetrievalSufficiency's judge through a local OpenAI-compatible server writes their verdicts as
per-question columns; the identical re-run reads every judgement from the cache; a server replying
garbage leaves the columns empty and fails the job with the reason."""

from __future__ import annotations

import json

import pytest

from tests.conftest import TINY_DATASET_OVERRIDES
from tests.e2e.test_sweep import run_cli
from tests.judges.test_mlflow_judge import KEY, KEY_ENV, verdicts

pytestmark = pytest.mark.slow
PREDICTIONS = {"t1": "3600 seconds", "t2": "50 connections", "t3": "100 requests per minute", "t4": "2 hours"}


def job(tmp_path, base_url: str, *extra: str):
    (tmp_path / "preds.json").write_text(json.dumps(PREDICTIONS))
    done = run_cli(tmp_path, *TINY_DATASET_OVERRIDES, "chunker=none", "retriever=bm25", "tracking=none",
                   "generator=predictions", f"generator.path={tmp_path / 'preds.json'}",
                   "metrics=[retrieval,judge]", "judge=mlflow", "judge.model=openai:/judge-model",
                   f"judge.base_url={base_url}", f"judge.api_key_env={KEY_ENV}", "judge.selfcheck.pairs=4",
                   "rubric=[mlflow_correctness,mlflow_sufficiency]", *extra, multirun=False,
                   env={KEY_ENV: KEY, "OPENAI_API_KEY": "", "OPENAI_API_BASE": ""})
    rows = {r["question_id"]: r for r in map(json.loads, (tmp_path / "run" / "per_question.jsonl").open())}
    return done, rows, json.loads((tmp_path / "run" / "metrics.json").read_text())["metrics"]


def test_verdicts_are_columns_and_the_rerun_reads_the_cache(tmp_path, httpserver):
    httpserver.expect_request("/v1/chat/completions", method="POST").respond_with_handler(verdicts)
    done, rows, metrics = job(tmp_path, httpserver.url_for("/v1"))
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert {q: r["judge/mlflow_correctness"] for q, r in rows.items()} == {"t1": 1.0, "t2": 0.0, "t3": 1.0, "t4": 0.0}
    assert all(r["judge/mlflow_sufficiency"] in (0.0, 1.0) for r in rows.values())
    assert metrics["judge/judged"] == 8.0 and metrics["judge/failed"] == 0.0
    assert metrics["judge/mlflow_correctness_selfcheck_n"] == 4.0
    calls = len(httpserver.log)

    done, again, metrics = job(tmp_path, httpserver.url_for("/v1"))
    assert done.returncode == 0, done.stderr[-3000:]
    assert metrics["judge/cache_hits"] == 8.0 and metrics["judge/cache_misses"] == 0.0
    assert len(httpserver.log) == calls
    columns = ("judge/mlflow_correctness", "judge/mlflow_sufficiency")
    assert [[r[c] for c in columns] for r in again.values()] == [[r[c] for c in columns] for r in rows.values()]


def test_garbage_replies_are_failures_not_values(tmp_path, httpserver):
    httpserver.expect_request("/v1/chat/completions", method="POST").respond_with_data("not a chat completion")
    done, rows, metrics = job(tmp_path, httpserver.url_for("/v1"), "rubric=[mlflow_correctness]")
    assert done.returncode == 1
    assert all(r.get("judge/mlflow_correctness") is None for r in rows.values())
    assert metrics["judge/failed"] == 4.0 and "judge/mlflow_correctness" not in metrics
    assert "judge: all 4 calls failed; most common reason (4x): judge call failed: MlflowException: Failed to " \
        in done.stdout + done.stderr
