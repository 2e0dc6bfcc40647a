"""End to end: answer metrics from a predictions file and from the real local generator."""

from __future__ import annotations

import json

import pytest

from tests.conftest import TINY_DATASET_OVERRIDES
from tests.e2e.test_sweep import run_cli, runs_of

pytestmark = pytest.mark.slow


def test_predictions_are_scored_and_missing_ones_skipped_and_counted(tmp_path):
    predictions = tmp_path / "predictions.jsonl"
    predictions.write_text("\n".join(json.dumps(p) for p in [
        {"question_id": "t1", "answer": "Tokens expire after 3600 seconds.", "latency_seconds": 0.8,
         "ttft_seconds": 0.2, "input_tokens": 120, "output_tokens": 8},
        {"question_id": "t2", "answer": "", "contexts": ["The pool holds 100 connections per region."]},
        {"question_id": "t3", "answer": "Fifty requests per hour."},
    ]) + "\n")  # t4 has no prediction
    done = run_cli(tmp_path, *TINY_DATASET_OVERRIDES, "generator=predictions",
                   f"generator.path={predictions}", "generator.on_missing=skip", multirun=False)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    client, runs = runs_of(tmp_path)
    assert len(runs) == 1
    run = runs[0]
    metrics = run.data.metrics
    assert metrics["generation/skipped_count"] == 1 and metrics["generation/failed_count"] == 0
    assert metrics["generation/answered"] == 3
    assert metrics["answer/em"] == pytest.approx(0.0) and metrics["answer/count_empty_response"] == 1
    assert 0 < metrics["answer/f1"] < 1
    assert metrics["generation/latency_p50_seconds"] == pytest.approx(0.8)
    artifacts = {a.path for a in client.list_artifacts(run.info.run_id)}
    assert {"per_question.jsonl", "worst_answers.json"} <= artifacts
    worst = json.loads(open(client.download_artifacts(run.info.run_id, "worst_answers.json", str(tmp_path))).read())
    assert [row["question_id"] for row in worst][:1] == ["t2"]  # the empty answer is the worst


def test_local_generator_answers_both_conditions_and_reports_the_delta(tmp_path):
    done = run_cli(tmp_path, *TINY_DATASET_OVERRIDES, "generator=local", "generator.max_new_tokens=12",
                   "generation.conditions=[with_context,no_context]", "generation.contexts=2",
                   "generation.sample=3", multirun=False)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    client, runs = runs_of(tmp_path)
    run = runs[0]
    metrics = run.data.metrics
    assert metrics["context_delta/n_with_context"] == 3 and metrics["context_delta/n_no_context"] == 3
    assert metrics["context_delta/delta_pp"] == pytest.approx(
        metrics["context_delta/accuracy_with_context"] - metrics["context_delta/accuracy_no_context"])
    # Three prompts decoded in one batch: throughput and each answer's share, never a "latency".
    assert "generation/latency_p50_seconds" not in metrics and "generation/ttft_p50_seconds" not in metrics
    assert metrics["generation/answers_per_second"] == pytest.approx(
        1 / metrics["generation/seconds_per_answer_batched"])  # answers / total batch time = 1 / mean share
    assert metrics["generation/output_tokens"] <= 12
    assert "answer/f1" in metrics and "answer/bertscore_f1" in metrics
    report = json.loads(open(client.download_artifacts(run.info.run_id, "context_delta.json", str(tmp_path))).read())
    assert report["sample_per_pack"] == 3 and report["grand_summary"]["training"]["n"] == 3
    assert len(report["per_pack"]["questions_jsonl"]["scores"]["training"]) == 3
    assert report["delta_pp"] == pytest.approx(metrics["context_delta/delta_pp"])
