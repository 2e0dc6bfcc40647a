"""The local judge (embedded SmolLM2-135M) on the real rubric configs."""

from __future__ import annotations

import math

import pytest
from hydra.utils import instantiate

from harness.judges.items import item_for
from harness.judges.local import LocalJudge
from tests.judges.conftest import RUBRICS, demo_questions, make_record

pytestmark = pytest.mark.slow
WRONG = "The answer is 42 bananas on Tuesdays."


@pytest.fixture
def local_judge(compose):
    def _judge(*overrides: str) -> LocalJudge:
        return instantiate(compose(["judge=local", *overrides]).judge)
    return _judge


def test_correct_answers_score_above_wrong_ones_on_demo_questions(local_judge, rubric):
    judge, answer_score = local_judge(), rubric("answer_score")
    questions = demo_questions()[::7][:10]
    correct, wrong = [], []
    for q in questions:
        for answer, bucket in ((q["expected_answer"], correct), (WRONG, wrong)):
            record = make_record(qid=q["id"], question=q["question"], ground_truth=q["ground_truth"],
                                 expected=q["expected_answer"], answer=answer)
            bucket.append(item_for(record, "with_context"))
    right_scores = [j.score for j in answer_score.evaluate(judge, correct)]
    wrong_scores = [j.score for j in answer_score.evaluate(judge, wrong)]
    assert all(0 <= s <= 10 for s in right_scores + wrong_scores)
    assert sum(right_scores) / 10 > sum(wrong_scores) / 10 + 0.5
    assert sum(r > w for r, w in zip(right_scores, wrong_scores)) >= 8


def test_scores_are_deterministic_and_keep_the_argmax(local_judge, rubric):
    judge, r = local_judge(), rubric("manual_grade")
    items = [item_for(make_record(), "retrieval")]
    first, again = r.evaluate(judge, items)[0], r.evaluate(judge, items)[0]
    assert first.score == pytest.approx(again.score, abs=1e-9)
    probabilities = {float(k): v for k, v in first.detail["probabilities"]["score"].items()}
    assert sorted(probabilities) == [float(v) for v in range(1, 11)]
    assert sum(probabilities.values()) == pytest.approx(1.0, abs=1e-4)
    assert first.score == pytest.approx(sum(v * p for v, p in probabilities.items()), abs=1e-3)
    assert first.argmax == max(probabilities, key=probabilities.get)
    assert first.verdict in ("PASS", "PARTIAL", "FAIL") and first.detail["verdict_from"] == "bands"


@pytest.mark.parametrize("name", [r for r in RUBRICS if not r.startswith("mlflow_")])  # those need judge=mlflow
def test_every_rubric_runs_on_the_local_judge(local_judge, rubric, name):
    judge = local_judge("judge.max_new_tokens=32")
    # accuracy_threshold: auto needs a self-check, which a single item has not run: fix it here.
    r = rubric(name, [f"rubrics.{name}.max_claims=2"] if name.startswith("claims") else
               [f"rubrics.{name}.accuracy_threshold=0.5"] if name.startswith("likelihood") else [])
    record = make_record(baseline="I am not sure.")
    for target in r.applies_to:
        item = item_for(record, target)
        [judgement] = r.evaluate(judge, [item])
        assert not judgement.failed, judgement.missing
        values = r.values(judgement, item)
        for column in r.columns(target):
            assert values[column] is not None
        # likelihood_faithfulness is a mean log-probability; pmi_faithfulness a difference of two.
        scale = {"answer_score": (0, 10), "retrieval_grade": (1, 10), "manual_grade": (1, 10),
                 "likert": (1, 5), "likelihood_correctness": (0, 1), "supported": (0, 10),
                 "likelihood_faithfulness": (-math.inf, 0), "pmi_faithfulness": (-math.inf, math.inf)
                 }.get(name, (0, 1))
        for column in r.columns(target):
            if column != "retrieval_total_score":
                assert scale[0] <= values[column] <= scale[1], (column, values[column])


def test_samples_report_a_reproducible_spread(local_judge, rubric):
    from harness.stages.judging import Judging

    r = rubric("answer_score")
    items = [item_for(make_record(), "with_context")]

    def sampled(seed: int):
        judge = local_judge("judge.samples=6", "judge.temperature=1.0", f"judge.seed={seed}")
        return Judging(judge, {"answer_score": r})._evaluate("answer_score", r, items)[0]

    first, again, other = sampled(3), sampled(3), sampled(4)
    assert len(first.samples) == 6 and set(first.samples) <= {0.0, 10.0}
    assert first.samples == again.samples and first.samples != other.samples
    assert first.score == pytest.approx(sum(first.samples) / 6)
    assert first.spread > 0 and r.values(first, items[0])["answer_score_spread"] == first.spread


def test_samples_need_a_temperature(compose):
    from hydra.errors import InstantiationException

    with pytest.raises(InstantiationException, match="judge.samples=3 needs judge.temperature > 0"):
        instantiate(compose(["judge=local", "judge.samples=3"]).judge)
    from hydra.errors import ConfigCompositionException

    with pytest.raises(ConfigCompositionException, match="judge.cache"):  # a choice: refused at compose time
        compose(["judge=local", "judge.cache=sometimes"])
