"""The judging stage: cache keys, cache modes, missing judgements, samples, robustness."""

from __future__ import annotations

import pytest

from harness.cache import DiskCache
from harness.judges.base import Reply
from harness.stages.judging import Judging
from tests.judges.conftest import ScriptedJudge, make_record


def records(n: int = 3, **kwargs):
    return [make_record(qid=f"q{i}", answer=f"After {3600 + i} seconds.", baseline="No idea.", **kwargs)
            for i in range(n)]


def test_rerun_hits_the_cache_and_a_rubric_edit_misses_it(rubric, tmp_path):
    cache = DiskCache(tmp_path)
    judge = ScriptedJudge(lambda p, s: "8")
    figures = Judging(judge, {"answer_score": rubric("answer_score")}).run(records(), cache)
    assert (figures["judge/cache_hits"], figures["judge/cache_misses"], figures["judge/judged"]) == (0, 6, 6)
    assert len(judge.prompts) == 6 and figures["judge/seconds_per_judged_item"] > 0

    again = records()
    figures = Judging(judge, {"answer_score": rubric("answer_score")}).run(again, cache)
    assert (figures["judge/cache_hits"], figures["judge/cache_misses"], figures["judge/judged"]) == (6, 0, 0)
    assert len(judge.prompts) == 6  # no new call
    judgement = again[0].judgements["answer_score/with_context"]
    assert judgement.cached and judgement.score == 8.0
    assert judgement.values == {"answer_score": 8.0, "answer_score_accurate": 1.0}

    edited = rubric("answer_score", ["rubrics.answer_score.repair='Reply with a number: {error}'"])
    figures = Judging(judge, {"answer_score": edited}).run(records(), cache)
    assert (figures["judge/cache_hits"], figures["judge/cache_misses"]) == (0, 6)

    other_judge = ScriptedJudge(lambda p, s: "8", name="another-model")
    figures = Judging(other_judge, {"answer_score": rubric("answer_score")}).run(records(), cache)
    assert figures["judge/cache_misses"] == 6

    changed_answer = records()
    changed_answer[0].generation.text = "Never."
    figures = Judging(judge, {"answer_score": rubric("answer_score")}).run(changed_answer, cache)
    assert (figures["judge/cache_hits"], figures["judge/cache_misses"]) == (5, 1)


@pytest.mark.parametrize("edit", [
    # the prompt text: "Q:" spelled out as "Question:"
    "rubrics.answer_score.messages=[{role: user, content: 'Score 0-10. Question: {question} "
    "Expected: {ground_truth} Actual: {answer} Number only.'}]",
    # the scale alone: the prompt renders the same, only the rubric's fingerprint differs
    "rubrics.answer_score.scores.score.max=9",
])
def test_a_prompt_or_scale_edit_misses_the_cache_and_its_rerun_hits(rubric, tmp_path, edit):
    cache = DiskCache(tmp_path)
    judge = ScriptedJudge(lambda p, s: "8")
    original = rubric("answer_score")
    assert Judging(judge, {"answer_score": original}).run(records(), cache)["judge/cache_misses"] == 6

    edited = rubric("answer_score", [edit])
    assert edited.fingerprint() != original.fingerprint()
    changed = [name for name in ("messages", "scores") if edited.fingerprint()[name] != original.fingerprint()[name]]
    assert changed == (["messages"] if "messages" in edit else ["scores"])
    judged = records()
    figures = Judging(judge, {"answer_score": edited}).run(judged, cache)
    assert (figures["judge/cache_hits"], figures["judge/cache_misses"], figures["judge/judged"]) == (0, 6, 6)
    assert len(judge.prompts) == 12
    sent = judge.prompts[-1].messages[-1]["content"]
    assert ("Question: " in sent) == ("messages" in edit)

    for rerun_rubric in (rubric("answer_score", [edit]), rubric("answer_score")):  # unchanged re-runs
        figures = Judging(judge, {"answer_score": rerun_rubric}).run(records(), cache)
        assert (figures["judge/cache_hits"], figures["judge/cache_misses"], figures["judge/judged"]) == (6, 0, 0)
    assert len(judge.prompts) == 12  # no new call


@pytest.mark.parametrize("mode, calls_on_rerun", [("refresh", 6), ("off", 6)])
def test_cache_modes(rubric, tmp_path, mode, calls_on_rerun):
    cache = DiskCache(tmp_path)
    Judging(ScriptedJudge(lambda p, s: "8"), {"answer_score": rubric("answer_score")}).run(records(), cache)
    judge = ScriptedJudge(lambda p, s: "3", cache=mode)
    fresh = records()
    figures = Judging(judge, {"answer_score": rubric("answer_score")}).run(fresh, cache)
    assert len(judge.prompts) == calls_on_rerun and figures["judge/cache_hits"] == 0
    assert fresh[0].judgements["answer_score/with_context"].score == 3.0
    after = records()
    Judging(ScriptedJudge(lambda p, s: "9"), {"answer_score": rubric("answer_score")}).run(after, cache)
    # refresh overwrote the entries with the new judgements; off left the old ones alone
    assert after[0].judgements["answer_score/with_context"].score == (3.0 if mode == "refresh" else 8.0)


def test_failures_are_missing_with_a_reason_and_never_cached(rubric, tmp_path):
    cache = DiskCache(tmp_path)

    def flaky(prompt, sample):
        return Reply(error="APITimeoutError: Request timed out.") if "3601" in prompt.messages[-1]["content"] else "6"

    judged = records()
    figures = Judging(ScriptedJudge(flaky), {"answer_score": rubric("answer_score")}).run(judged, cache)
    failed = judged[1].judgements["answer_score/with_context"]
    assert failed.score is None and failed.missing == "judge call failed: APITimeoutError: Request timed out."
    assert failed.values == {"answer_score": None}
    # judged counts successes, failed the judge's failures: 6 items, 1 failed call
    assert (figures["judge/judged"], figures["judge/failed"], figures["judge/missing"]) == (5, 1, 1)
    rerun = records()
    figures = Judging(ScriptedJudge(lambda p, s: "6"), {"answer_score": rubric("answer_score")}).run(rerun, cache)
    assert (figures["judge/cache_hits"], figures["judge/cache_misses"]) == (5, 1)
    assert rerun[1].judgements["answer_score/with_context"].score == 6.0


def test_a_judge_crash_makes_the_batch_missing_not_the_run_fail(rubric, tmp_path):
    def crash(prompt, sample):
        raise MemoryError("out of memory")

    judged = records()
    judging = Judging(ScriptedJudge(crash), {"answer_score": rubric("answer_score")})
    figures = judging.run(judged, DiskCache(tmp_path))
    assert figures["judge/missing"] == 6
    assert (figures["judge/judged"], figures["judge/failed"]) == (0, 6)
    assert judging.tally.verdict() == ("judge: all 6 calls failed; most common reason (6x): "
                                       "judge error: MemoryError: out of memory")
    assert judged[0].judgements["answer_score/no_context"].missing == "judge error: MemoryError: out of memory"


def test_failed_generation_is_missing_and_unsampled_questions_are_skipped(rubric, tmp_path):
    failed = make_record(qid="f", error="RateLimitError: 429")
    unsampled = make_record(qid="u", answer=None)
    judge = ScriptedJudge(lambda p, s: "8")
    figures = Judging(judge, {"answer_score": rubric("answer_score")}).run([failed, unsampled], DiskCache(tmp_path))
    assert failed.judgements["answer_score/with_context"].missing.startswith("no answer to judge: generation failed")
    assert unsampled.judgements == {} and judge.prompts == []
    # missing because of the generation, not a failed judge call
    assert (figures["judge/missing"], figures["judge/failed"], figures["judge/judged"]) == (1, 0, 0)


def test_a_failed_answer_scored_as_a_miss_is_judged_as_an_empty_answer(rubric, tmp_path):
    from harness.generators.base import FAILED_AS_MISS

    failed = make_record(qid="f", error="RuntimeError: HTTP 500")
    failed.generation.extra[FAILED_AS_MISS] = True  # app.on_failure / generation.on_failure = miss
    judge = ScriptedJudge(lambda p, s: "0")
    Judging(judge, {"answer_score": rubric("answer_score")}).run([failed], DiskCache(tmp_path))
    assert failed.judgements["answer_score/with_context"].score == 0.0 and len(judge.prompts) == 1


def test_retrieval_rubrics_need_no_generation(rubric, tmp_path):
    record = make_record(answer=None)
    Judging(ScriptedJudge(lambda p, s: '{"grade": 9, "reasoning": "r"}'),
            {"retrieval_grade": rubric("retrieval_grade")}).run([record], DiskCache(tmp_path))
    assert record.judgements["retrieval_grade/retrieval"].values == {"retrieval_grade": 9.0,
                                                                    "retrieval_total_score": 9.0}


def test_with_context_answers_are_judged_against_the_contexts_they_saw(rubric, tmp_path):
    judge = ScriptedJudge(lambda p, s: '{"relevance": 5, "faithfulness": 5, "conciseness": 5}')
    record = make_record()
    record.prompt_chunk_count = 1  # set by the answering stage from generation.contexts
    Judging(judge, {"likert": rubric("likert")}).run([record], DiskCache(tmp_path))
    prompt = judge.prompts[0].messages[-1]["content"]
    assert "All tokens expire after 3600 seconds." in prompt and "Rate limits" not in prompt


def test_samples_give_mean_and_spread(rubric, tmp_path):
    replies = {0: "6", 1: "8", 2: "10"}
    record = make_record()
    Judging(ScriptedJudge(lambda p, s: replies[s], samples=3), {"answer_score": rubric("answer_score")}).run(
        [record], DiskCache(tmp_path))
    judgement = record.judgements["answer_score/with_context"]
    assert judgement.samples == [6.0, 8.0, 10.0]
    assert judgement.score == 8.0 and judgement.spread == pytest.approx(2.0)
    assert judgement.values["answer_score_spread"] == pytest.approx(2.0)


def test_one_failed_sample_is_left_out_all_failed_is_missing(rubric, tmp_path):
    record = make_record()
    Judging(ScriptedJudge(lambda p, s: Reply(error="boom") if s == 1 else "7", samples=3),
            {"answer_score": rubric("answer_score")}).run([record], DiskCache(tmp_path))
    judgement = record.judgements["answer_score/with_context"]
    assert judgement.samples == [7.0, None, 7.0] and judgement.score == 7.0 and judgement.spread == 0.0
    record = make_record()
    Judging(ScriptedJudge(lambda p, s: Reply(error="boom"), samples=2),
            {"answer_score": rubric("answer_score")}).run([record], DiskCache(tmp_path / "other"))
    assert record.judgements["answer_score/with_context"].missing.startswith("all 2 samples failed")


def test_judgements_appear_in_the_per_question_row(rubric, tmp_path):
    record = make_record()
    Judging(ScriptedJudge(lambda p, s: '{"score": 9, "explanation": "clear", "verdict": "PASS"}'),
            {"manual_grade": rubric("manual_grade")}).run([record], DiskCache(tmp_path))
    row = record.row({})
    assert row["judgements"]["manual_grade/retrieval"]["score"] == 9.0
    assert row["judgements"]["manual_grade/retrieval"]["verdict"] == "PASS"
    assert row["judgements"]["manual_grade/retrieval"]["reasoning"] == "clear"


def test_samples_of_a_multi_dimension_rubric(rubric, tmp_path):
    replies = {0: '{"relevance": 5, "faithfulness": 4, "conciseness": 3}',
               1: '{"relevance": 3, "faithfulness": 4, "conciseness": 5}'}
    record = make_record()
    Judging(ScriptedJudge(lambda p, s: replies[s], samples=2), {"likert": rubric("likert")}).run(
        [record], DiskCache(tmp_path))
    judgement = record.judgements["likert/with_context"]
    assert judgement.dimensions == {"relevance": 4.0, "faithfulness": 4.0, "conciseness": 4.0}
    assert judgement.dimension_spread == pytest.approx({"relevance": 2 ** 0.5, "faithfulness": 0.0,
                                                        "conciseness": 2 ** 0.5})
    assert judgement.samples[0] == {"relevance": 5.0, "faithfulness": 4.0, "conciseness": 3.0}
    assert judgement.values["likert_relevance_spread"] == pytest.approx(2 ** 0.5)


def test_only_the_answered_sample_is_judged(compose, tmp_path):
    """generation.sample picks the questions; retrieval rubrics judge the same ones."""
    from hydra.utils import instantiate

    from harness.data.questions_jsonl import load_questions_jsonl
    from harness.stages.answering import Answering
    from harness.generators.base import Generation, Generator
    from harness.stages.pipeline import run_pipeline
    from tests.conftest import TINY

    class Echo(Generator):
        model = "echo"

        def generate(self, requests):
            return [Generation(text="3600 seconds") for _ in requests]

        def fingerprint(self):
            return {"generator": "echo"}

    cfg = compose(["chunker=none", "retriever=bm25", "rubric=[answer_score,retrieval_grade]"])
    dataset = load_questions_jsonl("tiny", str(TINY / "questions.jsonl"), str(TINY / "docs"))
    answering = Answering(generator=Echo(), prompt=instantiate(cfg.prompt), conditions=["with_context"],
                          contexts=None, sample=2, seed=0)
    judge = ScriptedJudge(lambda p, s: '{"grade": 7, "reasoning": "r"}' if "grade" in p.messages[-1]["content"]
                          else "9")
    judging = Judging(judge, {name: instantiate(r) for name, r in cfg.rubrics.items()})
    result = run_pipeline(dataset, instantiate(cfg.chunker), instantiate(cfg.retriever),
                          {"judge": instantiate(cfg.metrics.judge)}, DiskCache(tmp_path), answering, judging)
    sampled = [row for row in result.rows if "answer" in row]
    assert len(sampled) == 2 and len(judge.prompts) == 4
    assert all(row["judge/answer_score"] == 9.0 and row["judge/retrieval_grade"] == 7.0 for row in sampled)
    assert all("judge/retrieval_grade" not in row for row in result.rows if "answer" not in row)
    assert result.metrics["judge/retrieval_grade_n"] == 2 and result.metrics["judge/cache_misses"] == 4


def test_cache_key_holds_the_rendered_prompts(rubric):
    """Same answer, other contexts: the claims verification prompt differs, so must the key."""
    r = rubric("claims_faithfulness")
    from harness.judges.items import item_for

    one = r.cache_payload(item_for(make_record(), "with_context"))
    other = r.cache_payload(item_for(make_record(chunks=["Tokens never expire."]), "with_context"))
    assert one != other
    assert "Claim: {claim}" in one["prompts"]["verify.messages[0]"]
    assert "[1] All tokens expire after 3600 seconds." in one["prompts"]["verify.messages[0]"]
    assert one["prompts"]["extract.messages[0]"] == other["prompts"]["extract.messages[0]"]


def test_two_rubrics_filling_one_column_are_refused(rubric):
    with pytest.raises(ValueError, match="rubrics answer_score and copy both fill the column judge/answer_score"):
        Judging(ScriptedJudge(lambda p, s: "8"), {"answer_score": rubric("answer_score"),
                                                   "copy": rubric("answer_score")})
