"""Likelihood rubrics: the score arithmetic on a constructed judge, and the log-probabilities of
the real embedded model against a naive one-sequence-at-a-time computation."""

from __future__ import annotations

import math

import pytest
from hydra.utils import instantiate

from harness.judges.base import Judge, JudgePrompt
from harness.judges.items import item_for
from tests.judges.conftest import ScriptedJudge, make_record


class TokenJudge(Judge):
    """Token log-probabilities fixed by the prompt: -0.1, -0.3 after evidence, -1 and -2 without."""

    reads_likelihoods = True

    def __init__(self) -> None:
        self.seen: list[tuple[JudgePrompt, str]] = []

    def fingerprint(self) -> dict:
        return {"judge": "tokens"}

    def complete(self, prompts, sample=0):
        raise AssertionError("likelihood rubrics read no reply")

    def log_likelihoods(self, prompts, continuations):
        self.seen += list(zip(prompts, continuations))
        return [[-0.1, -0.3] if ("Proposed answer" in p.messages[-1]["content"] or "Using only" in p.messages[-1]["content"])
                else [-1.0, -2.0] for p in prompts]


def test_correctness_is_the_geometric_mean_token_probability(rubric):
    r, judge = rubric("likelihood_correctness"), TokenJudge()
    item = item_for(make_record(), "with_context")
    [judgement] = r.evaluate(judge, [item])
    probability = math.exp((-0.1 - 0.3) / 2)  # the gold answer's two tokens, geometric mean: 0.8187
    assert judgement.score == pytest.approx(probability)
    assert judgement.detail == {"mean_log_prob": pytest.approx(-0.2), "tokens": 2}
    # accuracy_threshold: auto, before the run's self-check measured it: accuracy missing, not 0
    assert r.values(judgement, item) == {"likelihood_correctness": pytest.approx(probability),
                                         "likelihood_correctness_accurate": None}
    r.accuracy_threshold.measured(0.85)  # thresholds on the same [0, 1] scale
    assert r.values(judgement, item)["likelihood_correctness_accurate"] == 0.0
    r.accuracy_threshold.measured(0.80)
    assert r.values(judgement, item)["likelihood_correctness_accurate"] == 1.0
    fixed = rubric("likelihood_correctness", ["rubrics.likelihood_correctness.accuracy_threshold=0.9"])
    fixed.accuracy_threshold.measured(0.1)  # a number stays fixed
    assert fixed.values(judgement, item)["likelihood_correctness_accurate"] == 0.0
    prompt, continuation = judge.seen[0]
    assert continuation == "3600 seconds"  # the gold answer, read after the candidate answer
    assert "After 3600 seconds." in prompt.messages[0]["content"]
    assert r.columns("no_context") == ["likelihood_correctness_no_context", "likelihood_correctness_no_context_accurate"]


def test_pmi_subtracts_the_unconditional_mean_log_probability(rubric):
    item = item_for(make_record(), "with_context")
    [plain] = rubric("likelihood_faithfulness").evaluate(TokenJudge(), [item])
    judge = TokenJudge()
    [pmi] = rubric("pmi_faithfulness").evaluate(judge, [item])
    assert plain.score == pytest.approx(-0.2)
    assert pmi.score == pytest.approx(-0.2 - (-1.5))
    assert pmi.detail["unconditional_mean_log_prob"] == pytest.approx(-1.5)
    conditional, unconditional = judge.seen
    assert "All tokens expire after 3600 seconds." in conditional[0].messages[0]["content"]
    assert unconditional[0].messages[0]["content"] == "When do tokens expire?"
    assert conditional[1] == unconditional[1] == "After 3600 seconds."


def test_judges_without_log_probabilities_record_the_item_as_missing(rubric):
    [judgement] = rubric("likelihood_correctness").evaluate(ScriptedJudge(lambda p, s: "8"),
                                                            [item_for(make_record(), "with_context")])
    assert judgement.failed and "does not expose token log-probabilities" in judgement.missing


def test_configuration_mistakes_fail_at_construction(rubric):
    with pytest.raises(Exception, match="normalisation must be one of"):
        rubric("likelihood_faithfulness", ["rubrics.likelihood_faithfulness.normalisation=ratio"])
    with pytest.raises(Exception, match="pmi needs unconditional.messages"):
        rubric("likelihood_faithfulness", ["rubrics.likelihood_faithfulness.normalisation=pmi"])
    with pytest.raises(Exception, match="unknown placeholder"):
        rubric("likelihood_correctness", ["rubrics.likelihood_correctness.continuation='{gold}'"])
    with pytest.raises(Exception, match="accuracy_threshold must be a number, 'auto' or null, got 'atuo'"):
        rubric("likelihood_correctness", ["rubrics.likelihood_correctness.accuracy_threshold=atuo"])


@pytest.mark.slow
def test_batched_log_probabilities_match_one_sequence_at_a_time(compose):
    import torch

    judge = instantiate(compose(["judge=local", "judge.batch_size=3", "judge.dtype=float32"]).judge)
    tokenizer, model = judge._model()
    prompts = [JudgePrompt(({"role": "user", "content": text},)) for text in
               ("What is 2 + 2?", "Name the capital of France, please, in one word.", "Say hi.")]
    continuations = ["4", "Paris", "Hello there, friend."]
    batched = judge.log_likelihoods(prompts, continuations)
    for prompt, continuation, got in zip(prompts, continuations, batched):
        head = tokenizer(judge.text(prompt), add_special_tokens=False)["input_ids"]
        tail = tokenizer(continuation, add_special_tokens=False)["input_ids"]
        with torch.no_grad():
            logits = model(input_ids=torch.tensor([head + tail])).logits[0].float()
        expected = [float(torch.log_softmax(logits[len(head) - 1 + k], -1)[t]) for k, t in enumerate(tail)]
        assert got == pytest.approx(expected, abs=1e-4)
    [after_question, after_greeting] = judge.log_likelihoods(prompts[1:], ["Paris", "Paris"])
    # another batch pads differently: equal to float32 rounding, not bit for bit
    assert after_question == pytest.approx(batched[1], abs=1e-4) and after_question[0] > after_greeting[0] + 2  # the question makes Paris likely
