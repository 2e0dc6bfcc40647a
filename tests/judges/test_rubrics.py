"""Every rubric renders its YAML prompt and reads valid replies; seed 002's total score and seed
000's verdicts; configuration mistakes fail at construction."""

from __future__ import annotations

import json

import pytest
from hydra.errors import InstantiationException

from harness.judges.base import Reply
from harness.judges.items import item_for
from harness.judges.judgement import Judgement
from tests.judges.conftest import RUBRICS, ScriptedJudge, make_record

# A valid reply per rubric, and what it must score.
VALID = {
    "answer_score": ("8", {"answer_score": 8.0, "answer_score_accurate": 1.0}),
    "supported": ("9", {"supported": 9.0}),
    "retrieval_grade": ('{"grade": 8, "reasoning": "the needle is in chunk 1"}',
                        {"retrieval_grade": 8.0, "retrieval_total_score": 8.0}),
    "manual_grade": ('{"score": 6, "explanation": "partial", "verdict": "PARTIAL"}',
                     {"manual_grade": 6.0, "manual_grade_verdict_pass": 0.0, "manual_grade_verdict_partial": 1.0,
                      "manual_grade_verdict_fail": 0.0}),
    "likert": ('```json\n{"relevance": 5, "faithfulness": 4, "conciseness": 3}\n```',
               {"likert_relevance": 5.0, "likert_faithfulness": 4.0, "likert_conciseness": 3.0}),
}


def test_every_rubric_is_covered():
    assert set(RUBRICS) == {"answer_score", "retrieval_grade", "manual_grade", "likert", "claims_faithfulness",
                            "claims_context_recall", "likelihood_correctness", "likelihood_faithfulness",
                            "pmi_faithfulness", "supported",  # the likelihood rubrics: tests/judges/test_likelihood.py
                            # MLflow's judges (judge=mlflow): tests/judges/test_mlflow_judge.py
                            "mlflow_correctness", "mlflow_relevance_to_query", "mlflow_groundedness",
                            "mlflow_sufficiency", "mlflow_guidelines", "mlflow_answer_rubric"}


@pytest.mark.parametrize("name", RUBRICS)
def test_every_rubric_renders_every_placeholder(rubric, name):
    r = rubric(name)
    record = make_record(baseline="No idea.")
    for target in r.applies_to:
        item = item_for(record, target)
        assert r.not_applicable(item) is None
        values = r.item_values(item)
        for where, (template, _) in r.templates().items():
            if where.startswith(("local.prefixes", "extract.local_prefix")):
                continue
            rendered = template.format(**values, claim="Tokens expire.")
            if "{question}" in template:
                assert "When do tokens expire?" in rendered
            if "{contexts}" in template:
                assert "All tokens expire after 3600 seconds." in rendered and "Rate limits" in rendered


@pytest.mark.parametrize("name", sorted(VALID))
def test_score_rubrics_parse_a_valid_reply(rubric, name):
    r = rubric(name)
    reply, expected = VALID[name]
    record = make_record()
    item = item_for(record, r.applies_to[0])
    [judgement] = r.evaluate(ScriptedJudge(lambda p, s: reply), [item])
    assert not judgement.failed, judgement.missing
    assert r.values(judgement, item) == expected


def test_seed_prompts_are_sent_verbatim(rubric):
    judge = ScriptedJudge(lambda p, s: "7")
    r = rubric("answer_score")
    item = item_for(make_record(), "with_context")
    r.evaluate(judge, [item])
    assert judge.prompts[0].messages == ({"role": "user", "content":
                                          "Score 0-10.\nQ: When do tokens expire?\nExpected: 3600 seconds\n"
                                          "Actual: After 3600 seconds.\nNumber only."},)
    judge = ScriptedJudge(lambda p, s: '{"grade": 8, "reasoning": "x"}')
    rubric("retrieval_grade").evaluate(judge, [item_for(make_record(), "retrieval")])
    content = judge.prompts[0].messages[0]["content"]
    assert content.startswith("You are evaluating retrieval quality for a documentation search system.")
    assert "**Expected Answer:** Tokens expire after 3600 seconds." in content
    assert "Chunk 1:\nAll tokens expire after 3600 seconds.\n\nChunk 2:\nRate limits: 100/min." in content
    assert content.endswith('Respond with ONLY a JSON object:\n{"grade": <1-10>, "reasoning": "<brief explanation>"}')


@pytest.mark.parametrize("grade, rank, total", [(10, 1, 10.0), (8, 3, 6.4), (8, None, 4.0), (3, 1, 3.0),
                                                (8, 2, 6.4), (8, 5, 6.4), (8, 7, 4.0)])
def test_seed_002_total_score(rubric, grade, rank, total):
    """Seed 002's worked examples: LLM=10 rank 1 -> 10.0; 8 at rank 3 -> 6.4; 8 not found -> 4.0; 3 at rank 1 -> 3.0."""
    r = rubric("retrieval_grade")
    chunks = [f"chunk {i}" for i in range(1, 8)]
    record = make_record(chunks=chunks, gold_doc="auth" if rank else "elsewhere")
    if rank:  # move the gold document to that rank
        record.chunks.insert(rank - 1, record.chunks.pop(0))
    record.question.relevant.clear()
    record.question.relevant["auth" if rank else "nowhere"] = 1
    item = item_for(record, "retrieval")
    assert item.gold_rank == rank
    [judgement] = r.evaluate(ScriptedJudge(lambda p, s: json.dumps({"grade": grade, "reasoning": "r"})), [item])
    assert r.values(judgement, item)["retrieval_total_score"] == pytest.approx(total)


def test_manual_grade_verdict_bands_for_judges_that_write_none(rubric):
    r = rubric("manual_grade")
    for score, verdict in [(10, "PASS"), (7, "PASS"), (6.9, "PARTIAL"), (5, "PARTIAL"), (4.99, "FAIL"), (1, "FAIL")]:
        judgement = r._finish({"score": score}, {"score": round(score)}, raw=None, reasoning=None, verdict=None)
        assert judgement.verdict == verdict and judgement.detail["verdict_from"] == "bands"


def test_missing_judgement_has_null_columns(rubric):
    r = rubric("likert")
    item = item_for(make_record(), "with_context")
    assert r.values(Judgement.missing_because("boom"), item) == {
        "likert_relevance": None, "likert_faithfulness": None, "likert_conciseness": None}


def test_no_context_answers_get_their_own_column(rubric):
    r = rubric("answer_score")
    item = item_for(make_record(baseline="I think 60 seconds."), "no_context")
    [judgement] = r.evaluate(ScriptedJudge(lambda p, s: "2"), [item])
    assert r.values(judgement, item) == {"answer_score_no_context": 2.0, "answer_score_no_context_accurate": 0.0}


def test_claims_rubrics_extract_then_verify(rubric):
    r = rubric("claims_faithfulness")

    def reply(prompt, sample):
        content = prompt.messages[-1]["content"]
        if content.startswith("Break the answer"):
            return "- Tokens expire.\n- They expire after 3600 seconds.\n- Keys are 4096-bit."
        return "Yes" if "4096" not in content else "No"

    item = item_for(make_record(), "with_context")
    [judgement] = r.evaluate(ScriptedJudge(reply), [item])
    assert judgement.score == pytest.approx(2 / 3)
    assert [c["support"] for c in judgement.detail["claims"]] == [1.0, 1.0, 0.0]
    assert r.values(judgement, item) == {"claims_faithfulness": pytest.approx(2 / 3)}

    recall = rubric("claims_context_recall")
    judge = ScriptedJudge(lambda p, s: "- Tokens expire after 3600 seconds." if "reference answer" in
                          p.messages[-1]["content"] else "yes")
    item = item_for(make_record(), "retrieval")
    [judgement] = recall.evaluate(judge, [item])
    assert judgement.score == 1.0
    assert "Reference answer: Tokens expire after 3600 seconds." in judge.prompts[0].messages[-1]["content"]


def test_unparsable_reply_gets_one_repair_naming_the_error(rubric):
    replies = iter(["The answer deserves an 8.", "8"])
    judge = ScriptedJudge(lambda p, s: next(replies))
    r = rubric("answer_score")
    [judgement] = r.evaluate(judge, [item_for(make_record(), "with_context")])
    assert judgement.score == 8.0 and judgement.detail["repaired"] is True
    repair = judge.prompts[1].messages
    assert repair[-2] == {"role": "assistant", "content": "The answer deserves an 8."}
    assert repair[-1]["content"].startswith("Your reply could not be used: expected a number only")


@pytest.mark.parametrize("name, target, first, second, error, score", [
    ("answer_score", "with_context", "7.5", "7", "score 7.5 is not an integer: the scale 0-10", 7.0),
    ("answer_score", "with_context", "7.5", "7.0", "score 7.5 is not an integer: the scale 0-10", 7.0),
    ("manual_grade", "retrieval", '{"score": 6.5, "explanation": "e", "verdict": "PARTIAL"}',
     '{"score": 6, "explanation": "e", "verdict": "PARTIAL"}', "field 'score' 6.5 is not an integer: the scale 1-10", 6.0),
    ("retrieval_grade", "retrieval", '{"grade": 8.5, "reasoning": "r"}', '{"grade": 8.0, "reasoning": "r"}',
     "field 'grade' 8.5 is not an integer: the scale 1-10", 8.0),
])
def test_a_fraction_on_an_integer_scale_gets_the_repair(rubric, name, target, first, second, error, score):
    """The rubrics' scales are integer (seed 004: "a single integer"; seeds 000 and 002: 1-10)."""
    replies = iter([first, second])
    judge = ScriptedJudge(lambda p, s: next(replies))
    [judgement] = rubric(name).evaluate(judge, [item_for(make_record(), target)])
    assert judgement.score == score and judgement.detail["repaired"] is True
    assert judge.prompts[1].messages[-1]["content"].startswith(f"Your reply could not be used: {error}")


class DistributionJudge(ScriptedJudge):
    """Reads fixed next-token probabilities, as the local judge does: no text is parsed."""

    reads_distributions = True

    def __init__(self, probabilities: dict[str, float]) -> None:
        super().__init__(lambda p, s: "unused")
        self.table = probabilities

    def probabilities(self, prompts, candidates):
        return [[self.table.get(c, 0.0) for c in candidates] for _ in prompts]


def test_probability_weighted_scores_stay_fractional(rubric):
    """Integer scales constrain parsed replies, not the local judge's probability-weighted mean."""
    item = item_for(make_record(), "with_context")
    [judgement] = rubric("answer_score").evaluate(DistributionJudge({"yes": 0.5, "Yes": 0.25, "no": 0.25}), [item])
    assert judgement.score == pytest.approx(7.5) and judgement.argmax == 10.0  # 10 x P(yes) = 10 x 0.75
    [judgement] = rubric("likert").evaluate(DistributionJudge({"4": 0.5, "5": 0.5}), [item])
    assert judgement.dimensions == pytest.approx({"relevance": 4.5, "faithfulness": 4.5, "conciseness": 4.5})


def test_still_unparsable_after_repair_is_missing_with_the_reason(rubric):
    judge = ScriptedJudge(lambda p, s: '{"grade": 11, "reasoning": "too generous"}')
    r = rubric("retrieval_grade")
    [judgement] = r.evaluate(judge, [item_for(make_record(), "retrieval")])
    assert judgement.failed and judgement.score is None
    assert "unparsable after one repair: field 'grade' 11 is outside the scale 1-10" in judgement.missing
    assert len(judge.prompts) == 2


def test_failed_call_is_missing_without_repair(rubric):
    judge = ScriptedJudge(lambda p, s: Reply(error="RateLimitError: 429"))
    [judgement] = rubric("answer_score").evaluate(judge, [item_for(make_record(), "with_context")])
    assert judgement.missing == "judge call failed: RateLimitError: 429"
    assert len(judge.prompts) == 1


@pytest.mark.parametrize("override, message", [
    ("rubrics.answer_score.messages=[{role:user,content:'Score {answr}'}]", r"unknown placeholder\(s\) \['\{answr\}'\]"),
    ("rubrics.answer_score.applies_to=[with_context,elsewhere]", "applies_to must be distinct targets"),
    ("rubrics.answer_score.scores.score.min=11", "min must be below max"),
])
def test_configuration_mistakes_fail_at_construction(rubric, override, message):
    with pytest.raises(InstantiationException, match=message):
        rubric("answer_score", [override])


def test_contexts_placeholder_is_refused_for_no_context_answers(rubric):
    with pytest.raises(InstantiationException, match="applies to no_context answers but its prompt uses"):
        rubric("likert", ["rubrics.likert.applies_to=[with_context,no_context]"])


def test_an_output_outside_the_choices_fails_at_compose_time(compose):
    from hydra.errors import ConfigCompositionException

    with pytest.raises(ConfigCompositionException, match="output"):
        compose(["rubric=[answer_score]", "rubrics.answer_score.output=yaml"])


def test_unknown_rubric_key_fails_at_compose_time(compose):
    from hydra.errors import ConfigCompositionException

    with pytest.raises(ConfigCompositionException, match="temprature"):
        compose(["rubric=[answer_score]", "rubrics.answer_score.temprature=0"])


def test_questions_without_ground_truth_are_not_applicable(rubric):
    r = rubric("answer_score")
    item = item_for(make_record(ground_truth=None, expected=None), "with_context")
    assert r.not_applicable(item) == "question has no ground_truth"


def test_rubrics_reading_contexts_skip_answers_whose_system_kept_its_contexts_to_itself(rubric):
    """A predictions file without ``contexts``: the harness's own retrieval is not what the
    system read, so faithfulness rubrics do not judge against it; answer_score still applies."""
    from harness.generators.base import CONTEXTS_UNKNOWN

    record = make_record()
    record.generation.extra[CONTEXTS_UNKNOWN] = True
    item = item_for(record, "with_context")
    assert item.contexts is None
    for name in ("likert", "claims_faithfulness"):
        assert rubric(name).not_applicable(item) == "the answering system did not report its contexts"
    assert rubric("answer_score").not_applicable(item) is None
