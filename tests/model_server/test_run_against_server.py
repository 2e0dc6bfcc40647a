"""A whole run against the real server: ``generator=openai`` and ``judge=openai`` as a user points
them at ``transformers serve``; per question the answer, its TTFT, latency, the server's token
counts and their cost at a configured price, and the judge's score or its failure with the reason."""

from __future__ import annotations

import json

import pytest

from tests.conftest import TINY_DATASET_OVERRIDES
from tests.e2e.test_sweep import run_cli, runs_of

pytestmark = pytest.mark.slow


def test_a_run_answers_and_judges_through_the_server(tmp_path, model_server, server_key):
    api = [f"base_url={model_server.base_url}", f"model={model_server.model}", f"api_key_env={server_key}",
           "max_tokens=8", "max_retries=0", "timeout=120"]
    done = run_cli(tmp_path, *TINY_DATASET_OVERRIDES, "generator=openai", *(f"generator.{o}" for o in api),
                   "generator.concurrency=2", "generator.price_as=gpt-4o-mini", "judge=openai",
                   *(f"judge.{o}" for o in api), "judge.selfcheck.enabled=false", "judge.max_failed_fraction=1.0",
                   "rubric=[answer_score]", "metrics.answer.bertscore=null", "generation.sample=2",
                   multirun=False, env={server_key: "local"})
    rows = [json.loads(line) for line in (tmp_path / "run" / "per_question.jsonl").read_text().splitlines()]
    _, (run,) = runs_of(tmp_path)
    judged = [r for r in rows if r.get("judge/answer_score") is not None]
    if judged:
        assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    else:  # every judge call unparsable: the job fails, naming why, with everything measured logged
        assert done.returncode == 1 and run.info.status == "FAILED"
        assert run.data.tags["harness.error"].startswith("judge: all 2 calls failed; most common reason"), \
            run.data.tags["harness.error"]
        assert "unparsable" in run.data.tags["harness.error"]
    answered = [r for r in rows if "answer" in r and r["answer_error"] is None]
    assert len(answered) == 2
    for row in answered:
        assert 0 < row["generation/ttft_seconds"] <= row["generation/latency_seconds"]
        tokens = row["generation/input_tokens"], row["generation/output_tokens"]
        assert tokens[0] > 0 and 1 <= tokens[1] <= 8
        assert row["generation/cost_usd"] == pytest.approx((tokens[0] * 0.15 + tokens[1] * 0.60) / 1e6)
        score, reason = row["judge/answer_score"], row["judgements"]["answer_score/with_context"].get("missing")
        assert (score is not None and 0 <= score <= 10) or reason.startswith("unparsable"), row
    assert run.data.metrics["generation/answered"] == 2.0
