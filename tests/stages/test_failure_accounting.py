"""Failure accounting: a failed call is a failure with its reason, never an empty answer scored 0,
and too many of them fail the job (issue 15, point 3). Real HTTP servers, real generator and judge."""

from __future__ import annotations

import pytest
from hydra.utils import instantiate

from harness.cache import DiskCache
from harness.failures import FailureTally
from harness.generators.openai_chat import OpenAIChatGenerator
from harness.judges.openai_judge import OpenAIJudge
from harness.metrics.generation_suite import GenerationSuite
from harness.stages.answering import Answering
from harness.stages.judging import Judging
from tests.judges.conftest import make_record
from tests.stages.conftest import ANSWER, KEY_ENV

REASONS = {
    "garbage": "UnparsableReplyError: the reply held no chat.completion.chunk with text or a finish_reason",
    "401": "AuthenticationError: Error code: 401",
    "refused": "APIConnectionError: Connection error.",
}


def answering(base_url: str, compose, **overrides) -> Answering:
    cfg = compose(["generation.sample=null"])
    generator = OpenAIChatGenerator(model="m", base_url=base_url, api_key_env=KEY_ENV, max_tokens=16,
                                    temperature=0.0, timeout=5.0, max_retries=0)
    return Answering(generator=generator, prompt=instantiate(cfg.prompt), conditions=["with_context"],
                     contexts=None, sample=None, seed=0, **overrides)


def records(n: int = 4):
    return [make_record(qid=f"q{i}", answer=None) for i in range(n)]


@pytest.mark.parametrize("mode", ["garbage", "401", "refused"])
def test_every_answer_failed_is_counted_with_its_reason_and_fails_the_job(openai_server, compose, tmp_path, mode):
    stage = answering(openai_server(mode), compose)
    answered = records()
    stage.answer(answered, DiskCache(tmp_path))
    for record in answered:
        assert record.generation.text == "" and record.generation.error.startswith(REASONS[mode])
        assert record.row({})["answer_error"] == record.generation.error
    assert (stage.tally.attempted, stage.tally.failed) == (4, 4)
    assert stage.tally.verdict().startswith(f"generation: all 4 calls failed; most common reason (4x): {REASONS[mode]}")

    # Never an empty answer: a failed one is a miss (EM = F1 = 0, generation.on_failure=miss, the default), or
    # with on_failure=exclude no answer metric at all; either way counted as failed, with its reason.
    answer_suite = instantiate(compose(["metrics.answer.bertscore=null"]).metrics.answer)
    answer_rows = [answer_suite.score(r) for r in answered]
    assert all(row["em"] == row["f1"] == row["rouge_l"] == 0.0 and row["category_empty_response"] == 1.0
               for row in answer_rows)
    excluded = records()
    answering(openai_server(mode), compose, on_failure="exclude").answer(excluded, DiskCache(tmp_path))
    assert [answer_suite.score(r) for r in excluded] == [{}] * 4
    assert answer_suite.aggregate(answer_rows).get("count_empty_response") == 4.0
    generation_suite = GenerationSuite({}, price_as=None, percentiles=[50])
    counts = generation_suite.aggregate([generation_suite.score(r) for r in answered])
    assert (counts["answered"], counts["failed_count"]) == (0.0, 4.0)


def test_failures_are_not_cached_and_a_good_server_answers_on_the_rerun(openai_server, compose, tmp_path):
    cache = DiskCache(tmp_path)
    answering(openai_server("garbage"), compose).answer(records(), cache)
    stage = answering(openai_server("ok"), compose)
    answered = records()
    stage.answer(answered, cache)
    assert [r.generation.text for r in answered] == [ANSWER] * 4
    assert (stage.tally.attempted, stage.tally.failed, stage.tally.verdict()) == (4, 0, None)


@pytest.mark.parametrize("failed, attempted, limit, fails", [
    (2, 4, 0.5, False),  # exactly the threshold: not more than it
    (3, 4, 0.5, True),
    (1, 4, 0.0, True),
    (3, 4, 1.0, False),
    (4, 4, 1.0, True),   # every call failed: FAILED whatever the threshold
    (0, 0, 0.0, False),  # nothing was called
])
def test_threshold(failed, attempted, limit, fails):
    tally = FailureTally("generation", limit)
    for index in range(attempted):
        tally.add("TimeoutError: read timed out" if index < failed else None)
    assert (tally.verdict() is not None) == fails
    assert tally.summary() == {"attempted": attempted, "failed": failed, "max_failed_fraction": limit,
                               "reasons": {"TimeoutError: read timed out": failed} if failed else {}}


def test_threshold_is_validated_with_its_name(compose):
    with pytest.raises(ValueError, match="generation.max_failed_fraction must be between 0 and 1, got 1.5"):
        answering("http://127.0.0.1:9/v1", compose, max_failed_fraction=1.5)
    with pytest.raises(ValueError, match="judge.max_failed_fraction must be between 0 and 1, got -0.1"):
        OpenAIJudge(model="m", api_key_env=KEY_ENV, max_tokens=8, temperature=0.0, timeout=5.0, max_retries=0,
                    max_failed_fraction=-0.1)


@pytest.mark.parametrize("mode", ["garbage", "401", "refused"])
def test_judge_failures_are_counted_apart_from_judgements(openai_server, compose, tmp_path, mode):
    judge = OpenAIJudge(model="m", base_url=openai_server(mode), api_key_env=KEY_ENV, max_tokens=8, temperature=0.0,
                        timeout=5.0, max_retries=0)
    cfg = compose(["rubric=[answer_score]"])
    judging = Judging(judge, {"answer_score": instantiate(cfg.rubrics.answer_score)})
    judged = [make_record(qid=f"q{i}") for i in range(3)]
    figures = judging.run(judged, DiskCache(tmp_path))
    assert (figures["judge/judged"], figures["judge/failed"], figures["judge/missing"]) == (0.0, 3.0, 3.0)
    for record in judged:
        judgement = record.judgements["answer_score/with_context"]
        assert judgement.score is None and judgement.missing
    assert judging.tally.verdict().startswith("judge: all 3 calls failed")


def test_a_good_judge_counts_its_judgements(openai_server, compose, tmp_path):
    judge = OpenAIJudge(model="m", base_url=openai_server("ok"), api_key_env=KEY_ENV, max_tokens=8, temperature=0.0,
                        timeout=5.0, max_retries=0)
    cfg = compose(["rubric=[answer_score]"])
    judging = Judging(judge, {"answer_score": instantiate(cfg.rubrics.answer_score)})
    judged = [make_record(qid=f"q{i}") for i in range(3)]
    figures = judging.run(judged, DiskCache(tmp_path))
    assert (figures["judge/judged"], figures["judge/failed"]) == (3.0, 0.0)
    assert [r.judgements["answer_score/with_context"].score for r in judged] == [8.0] * 3
    again = Judging(judge, {"answer_score": instantiate(cfg.rubrics.answer_score)})
    assert again.run([make_record(qid=f"q{i}") for i in range(3)], DiskCache(tmp_path))["judge/cache_hits"] == 3
    assert (again.tally.attempted, again.tally.failed) == (3, 0)
