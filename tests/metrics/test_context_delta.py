"""Seed 004's with-context vs no-context comparison: accuracy, delta, bands and the results JSON."""

from __future__ import annotations

import json

import pytest
from hydra.utils import instantiate
from omegaconf import OmegaConf

from harness.config.resolvers import PROJECT_ROOT
from harness.data.records import Question
from harness.generators.base import Generation
from harness.metrics.context_delta import ContextDeltaSuite
from harness.results.records import QuestionRecord


@pytest.fixture
def suite() -> ContextDeltaSuite:
    """The shipped YAML (threshold 7 and seed 004's interpretation table)."""
    cfg = OmegaConf.load(PROJECT_ROOT / "conf" / "metrics" / "context_delta.yaml")
    return instantiate({k: v for k, v in cfg.items() if k != "defaults"})


def record(qid: str, gold: str, with_context: str | None, no_context: str | None) -> QuestionRecord:
    generation = Generation(with_context) if with_context is not None else None
    baseline = Generation(no_context) if no_context is not None else None
    return QuestionRecord(Question(id=qid, text="?", answers=(gold,)), [], [], 5,
                          generation=generation, baseline=baseline)


def test_proxy_score_is_ten_times_best_f1_rounded(suite):
    # F1("blue whale", "the blue whale of the sea") = 2*(2/4)*(2/2)/(2/4+1) = 2/3 -> 6.67 -> 7
    rec = QuestionRecord(Question(id="q", text="?", answers=("nothing", "blue whale")), [], [], 5)
    assert suite.proxy_score(rec, "the blue whale of the sea") == 7.0
    assert suite.proxy_score(rec, "blue whale") == 10.0
    assert suite.proxy_score(rec, "") == 0.0
    assert suite.proxy_score(QuestionRecord(Question(id="q", text="?"), [], [], 5), "anything") is None


def test_proxy_rounds_half_up(suite):
    # 13 answer tokens, all among 27 gold tokens: F1 = 2*1*(13/27)/(1+13/27) = 26/40 = 0.65 -> 6.5 -> 7
    gold = " ".join(f"w{i}" for i in range(27))
    rec = QuestionRecord(Question(id="q", text="?", answers=(gold,)), [], [], 5)
    answer = " ".join(f"w{i}" for i in range(13))
    assert suite.proxy_score(rec, answer) == 7.0  # round() would give 6 (half to even)


def test_accuracy_is_share_of_scores_at_or_above_seven(suite):
    records = [record("a", "red", "red", "blue"), record("b", "green apple", "green apple", "green pear"),
               record("c", "x y z", "x", "x y z"), record("d", "one", "one", "one")]
    rows = [suite.score(r) for r in records]
    # with context: 10, 10, round(10*0.5)=5 (F1 of "x" vs "x y z" = 2*(1)*(1/3)/(4/3) = 0.5), 10
    assert [row["score_with_context"] for row in rows] == [10, 10, 5, 10]
    # no context: 0, 5 (F1 0.5), 10, 10
    assert [row["score_no_context"] for row in rows] == [0, 5, 10, 10]
    summary = suite.aggregate(rows)
    assert summary["accuracy_with_context"] == pytest.approx(75.0)
    assert summary["accuracy_no_context"] == pytest.approx(50.0)
    assert summary["avg_score_with_context"] == pytest.approx(8.75)
    assert summary["avg_score_no_context"] == pytest.approx(6.25)
    assert summary["delta_pp"] == pytest.approx(25.0)
    assert summary["n_with_context"] == summary["n_no_context"] == 4


def test_failed_and_unsampled_answers_are_not_scored(suite):
    failed = QuestionRecord(Question(id="f", text="?", answers=("red",)), [], [], 5,
                            generation=Generation("", error="TimeoutError"), baseline=Generation("red"))
    assert suite.score(failed) == {"missing_with_context": 1.0, "score_no_context": 10.0, "accurate_no_context": 1.0}
    assert suite.score(record("u", "a", None, None)) == {}
    summary = suite.aggregate([suite.score(failed)])
    assert "delta_pp" not in summary and summary["missing_with_context"] == 1 and summary["unpaired"] == 1


def test_both_conditions_are_compared_on_the_same_questions(suite):
    # Seed 004: the same set of questions under both conditions. "c" failed with context, so it
    # counts in neither condition, and is reported as missing and unpaired.
    failed = QuestionRecord(Question(id="c", text="?", answers=("z",)), [], [], 5,
                            generation=Generation("", error="TimeoutError"), baseline=Generation("z"))
    records = [record("a", "red", "red", "blue"), record("b", "one", "one", "one"), failed,
               record("u", "x", None, None)]
    summary = suite.aggregate([suite.score(r) for r in records])
    assert summary["n_with_context"] == summary["n_no_context"] == 2
    assert summary["accuracy_no_context"] == 50.0 and summary["accuracy_with_context"] == 100.0
    assert summary["delta_pp"] == 50.0
    assert summary["missing_with_context"] == 1 and summary["missing_no_context"] == 0
    assert summary["unpaired"] == 1


def test_one_condition_alone_reports_its_accuracy(suite):
    records = [record("a", "red", "red", None), record("b", "one", "two", None)]
    summary = suite.aggregate([suite.score(r) for r in records])
    assert summary == {"missing_with_context": 0.0, "accuracy_with_context": 50.0, "avg_score_with_context": 5.0,
                       "n_with_context": 2.0, "unpaired": 0.0}


@pytest.mark.parametrize("delta, label", [
    (5.0, "strong value"), (25.0, "strong value"), (4.9, "moderate value"), (1.0, "moderate value"),
    (0.0, "neutral"), (0.5, "neutral"), (-0.5, "neutral"), (-1.0, "slight regression"),
    (-1.5, "slight regression"), (-5.0, "slight regression"),
    (-5.1, "significant regression"), (-100.0, "significant regression")])
def test_seed_interpretation_bands(suite, delta, label):
    assert suite.interpret(delta).startswith(label)


def test_results_json_in_the_seed_shape(suite):
    records = [record("a", "red", "red", "blue"), record("b", "one", "one", "one"), record("c", "z", None, "z")]
    rows = [suite.score(r) for r in records]
    report = json.loads(suite.artifacts(records, rows)["context_delta.json"])
    # Seed 004's keys: training = the model alone (no context), pack = with retrieval.
    assert report["packs_evaluated"] == 1 and report["sample_per_pack"] == 2
    assert report["grand_summary"] == {"training": {"avg": 5.0, "accuracy": 50.0, "n": 2},
                                       "pack": {"avg": 10.0, "accuracy": 100.0, "n": 2}}
    # Per-question scores for the questions answered under both conditions, in question order.
    assert report["per_pack"] == {"run": {"scores": {"training": [0, 10], "pack": [10, 10]},
                                          "question_ids": ["a", "b"]}}
    assert report["conditions"] == {"training": "no_context", "pack": "with_context"}
    assert report["delta_pp"] == pytest.approx(50.0)
    assert report["interpretation"].startswith("strong value")
    assert report["threshold"] == 7
    assert report["scorer"].startswith("proxy")
    assert report["timestamp"].endswith("Z")


def test_no_artifact_without_both_conditions(suite):
    records = [record("a", "red", "red", None)]
    assert suite.artifacts(records, [suite.score(r) for r in records]) == {}
