"""Tests for harness.metrics.suites on hand-built QuestionRecords."""

from __future__ import annotations

import math

import pytest

from harness.chunkers.base import Chunk
from harness.data.records import Question
from harness.metrics.suites import KeyFactSuite, RetrievalSuite, mean_by_key
from harness.results.records import QuestionRecord

WEIGHTS = [1.0, 0.9, 0.7, 0.5, 0.3]
BANDS = [{"max_rank": 1, "weight": 1.0}, {"max_rank": 3, "weight": 0.7}, {"max_rank": 5, "weight": 0.5}]


def chunk(doc_id: str, index: int = 0, text: str = "") -> Chunk:
    text = text or f"text of {doc_id} part {index}"
    return Chunk(id=f"{doc_id}#{index}", doc_id=doc_id, text=text, start=0, end=len(text))


def record(chunks: list[Chunk], relevant: dict[str, int] | None = None, key_facts: tuple[str, ...] = (),
           top_k: int | None = None, qid: str = "q") -> QuestionRecord:
    question = Question(id=qid, text="question?", relevant=relevant or {}, key_facts=tuple(key_facts))
    return QuestionRecord(question=question, chunks=chunks, scores=[1.0 / (i + 1) for i in range(len(chunks))],
                          top_k=top_k if top_k is not None else len(chunks))


def key_fact_suite(**overrides) -> KeyFactSuite:
    options = dict(matchers=["exact", "fuzzy"], position_weights=WEIGHTS, rank_bands=BANDS)
    options.update(overrides)
    return KeyFactSuite(**options)


# --- RetrievalSuite -----------------------------------------------------------------------------


@pytest.fixture
def gold_third() -> QuestionRecord:
    """The gold document's first chunk sits at chunk rank 3 but document rank 2."""
    chunks = [chunk("other", 0), chunk("other", 1), chunk("gold", 0), chunk("gold", 1), chunk("x", 0)]
    return record(chunks, relevant={"gold": 1}, top_k=5)


def test_chunk_level_hit_and_mrr_use_chunk_ranks(gold_third):
    scores = RetrievalSuite(ks=[1, 3, 5]).score(gold_third)
    assert gold_third.gold_rank() == 3
    assert scores["hit_at_1"] == 0.0
    assert scores["hit_at_3"] == 1.0 and scores["hit_at_5"] == 1.0
    assert scores["mrr_at_1"] == 0.0
    assert scores["mrr_at_3"] == pytest.approx(1 / 3)
    assert scores["mrr_at_5"] == pytest.approx(1 / 3)
    assert scores["mrr"] == pytest.approx(1 / 3)
    # Context precision reads chunk grades [0, 0, 1, 1, 0]: (1/3 + 2/4) / 5.
    assert scores["context_precision"] == pytest.approx((1 / 3 + 2 / 4) / 5)


def test_recall_ndcg_map_use_the_deduplicated_document_ranking(gold_third):
    assert gold_third.ranked_doc_ids() == ["other", "gold", "x"]
    scores = RetrievalSuite(ks=[1, 3, 5]).score(gold_third)
    assert scores["recall_at_1"] == 0.0
    # Document rank 2 is inside the top 3 documents (chunk rank 3 would give the same recall,
    # but nDCG and MAP tell the two rankings apart).
    assert scores["recall_at_3"] == 1.0 and scores["recall_at_5"] == 1.0
    assert scores["ndcg_at_1"] == 0.0
    assert scores["ndcg_at_3"] == pytest.approx(1 / math.log2(3))  # rank 2, not 1 / log2(4)
    assert scores["ndcg_at_5"] == pytest.approx(1 / math.log2(3))
    assert scores["map"] == pytest.approx(1 / 2)  # precision at document rank 2


def test_recall_at_k_counts_documents_not_chunks():
    # Two chunks of one wrong document push the second gold doc to chunk rank 3, document rank 2.
    chunks = [chunk("a", 0), chunk("a", 1), chunk("b", 0)]
    scores = RetrievalSuite(ks=[2]).score(record(chunks, relevant={"a": 1, "b": 1}, top_k=3))
    assert scores["recall_at_2"] == 1.0
    assert scores["hit_at_2"] == 1.0 and scores["mrr_at_2"] == 1.0


def test_cutoffs_above_top_k_are_skipped(gold_third):
    scores = RetrievalSuite(ks=[10, 1, 5, 3, 3]).score(gold_third)
    assert "hit_at_10" not in scores and "ndcg_at_10" not in scores
    assert {k for k in scores if k.startswith("hit_at_")} == {"hit_at_1", "hit_at_3", "hit_at_5"}
    assert set(scores) == {f"{m}_at_{k}" for m in ("hit", "mrr", "recall", "ndcg") for k in (1, 3, 5)} | {
        "mrr", "map", "context_precision"}
    only_high = RetrievalSuite(ks=[10]).score(gold_third)
    assert set(only_high) == {"mrr", "map", "context_precision"}


def test_graded_relevance_and_explicit_zero():
    chunks = [chunk("c"), chunk("b"), chunk("a")]
    scores = RetrievalSuite(ks=[1, 3]).score(record(chunks, relevant={"a": 2, "b": 1, "c": 0}))
    assert scores["hit_at_1"] == 0.0  # grade 0 is judged but not relevant
    assert scores["mrr"] == pytest.approx(1 / 2)
    assert scores["recall_at_3"] == 1.0
    ideal = 2 / math.log2(2) + 1 / math.log2(3)
    assert scores["ndcg_at_3"] == pytest.approx((1 / math.log2(3) + 2 / math.log2(4)) / ideal)
    assert scores["map"] == pytest.approx((1 / 2 + 2 / 3) / 2)


def test_gold_not_retrieved_scores_zero():
    scores = RetrievalSuite(ks=[1, 3]).score(record([chunk("x"), chunk("y")], relevant={"gold": 1}, top_k=3))
    assert all(value == 0.0 for value in scores.values())
    assert "hit_at_3" in scores


@pytest.mark.parametrize("relevant", [{}, {"a": 0}, {"a": 0, "b": 0}])
def test_no_relevant_document_gives_no_scores(relevant):
    assert RetrievalSuite(ks=[1, 3]).score(record([chunk("a"), chunk("b")], relevant=relevant)) == {}


def test_retrieval_aggregate_is_a_mean_over_scored_questions(gold_third):
    suite = RetrievalSuite(ks=[1, 3])
    perfect = record([chunk("gold"), chunk("x")], relevant={"gold": 1}, top_k=3)
    rows = [suite.score(gold_third), suite.score(perfect), suite.score(record([chunk("a")]))]
    assert rows[2] == {}
    aggregate = suite.aggregate(rows)
    assert aggregate["mrr"] == pytest.approx((1 / 3 + 1) / 2)
    assert aggregate["hit_at_1"] == pytest.approx(0.5)


@pytest.mark.parametrize("ks", [[], [0, 3], [-1]])
def test_retrieval_suite_rejects_bad_cutoffs(ks):
    with pytest.raises(ValueError):
        RetrievalSuite(ks=ks)


def test_mean_by_key_skips_missing_none_and_skipped_keys():
    rows = [{"a": 1.0, "b": 2.0}, {"a": 3.0, "b": None}, {"c": 5.0}]
    assert mean_by_key(rows) == {"a": 2.0, "b": 2.0, "c": 5.0}
    assert mean_by_key(rows, skip=frozenset({"c"})) == {"a": 2.0, "b": 2.0}
    assert mean_by_key([]) == {}


# --- KeyFactSuite -------------------------------------------------------------------------------


@pytest.fixture
def two_questions() -> list[QuestionRecord]:
    first = record([chunk("d1", 0, "alpha is here"), chunk("d1", 1, "and beta too")],
                   key_facts=("alpha", "beta", "gamma"), qid="q1")
    second = record([chunk("d2", 0, "nothing"), chunk("d2", 1, "Delta appears")],
                    key_facts=("delta", "epsilon"), qid="q2")
    return [first, second]


def test_key_fact_coverage_per_question(two_questions):
    suite = key_fact_suite()
    first, second = (suite.score(r) for r in two_questions)
    assert first["facts"] == 3.0 and first["found_exact"] == 2.0
    assert first["coverage_exact"] == pytest.approx(2 / 3)
    assert second["facts"] == 2.0 and second["found_exact"] == 1.0
    assert second["coverage_exact"] == pytest.approx(1 / 2)
    assert first["coverage_fuzzy"] == pytest.approx(2 / 3)


def test_key_fact_micro_and_macro_coverage(two_questions):
    suite = key_fact_suite()
    aggregate = suite.aggregate([suite.score(r) for r in two_questions])
    assert aggregate["coverage_exact_micro"] == pytest.approx(3 / 5)
    assert aggregate["coverage_exact"] == pytest.approx((2 / 3 + 1 / 2) / 2)
    assert round(aggregate["coverage_exact"], 4) == 0.5833
    assert aggregate["coverage_fuzzy_micro"] == pytest.approx(3 / 5)
    # Counts feed the micro average but are not averaged themselves.
    assert not {"facts", "found_exact", "found_fuzzy"} & set(aggregate)


def test_position_weighted_and_rank_banded(two_questions):
    first, second = (key_fact_suite().score(r) for r in two_questions)
    # q1: alpha at rank 1 (1.0), beta at rank 2 (0.9), gamma missing.
    assert first["position_weighted"] == pytest.approx((1.0 + 0.9) / 3)
    assert first["rank_banded"] == pytest.approx((1.0 + 0.7) / 3)
    # q2: delta at rank 2 (0.9 / band <= 3: 0.7), epsilon missing.
    assert second["position_weighted"] == pytest.approx(0.9 / 2)
    assert second["rank_banded"] == pytest.approx(0.7 / 2)


def test_facts_beyond_the_weights_and_bands_count_for_coverage_only():
    chunks = [chunk("d", i, f"filler {i}") for i in range(5)] + [chunk("d", 5, "late fact")]
    scores = key_fact_suite().score(record(chunks, key_facts=("late fact",)))
    assert scores["coverage_exact"] == 1.0
    assert scores["position_weighted"] == 0.0
    assert scores["rank_banded"] == 0.0
    banded = key_fact_suite().score(record(chunks[1:], key_facts=("late fact",)))  # now rank 5
    assert banded["rank_banded"] == 0.5 and banded["position_weighted"] == pytest.approx(0.3)


def test_position_fact_score_sum_adds_every_matching_chunk():
    chunks = [chunk("d", 0, "fact"), chunk("d", 1, "none"), chunk("d", 2, "fact again")]
    first_hit = key_fact_suite().score(record(chunks, key_facts=("fact",)))
    summed = key_fact_suite(position_fact_score="sum").score(record(chunks, key_facts=("fact",)))
    assert first_hit["position_weighted"] == pytest.approx(1.0)
    assert summed["position_weighted"] == pytest.approx(1.7)


def test_fuzzy_finds_reordered_words_exact_does_not():
    chunks = [chunk("d", 0, "Expire: all session tokens, after an hour.")]
    scores = key_fact_suite().score(record(chunks, key_facts=("tokens expire", "never")))
    assert scores["coverage_exact"] == 0.0
    assert scores["coverage_fuzzy"] == pytest.approx(0.5)


def test_seed_000_arithmetic_47_of_53():
    """53 key facts over 10 questions, 47 of them found: micro coverage 47/53 = 88.68%."""
    suite = key_fact_suite(matchers=["exact"])
    facts_per_question = [5] * 9 + [8]
    missed_per_question = [0, 1, 0, 2, 0, 0, 1, 0, 0, 2]
    assert sum(facts_per_question) == 53 and sum(missed_per_question) == 6
    rows = []
    for q, (n_facts, n_missed) in enumerate(zip(facts_per_question, missed_per_question)):
        facts = [f"fact-{q}-{i}." for i in range(n_facts)]
        found = facts[: n_facts - n_missed]
        chunks = [chunk(f"doc{q}", 0, " ".join(found) or "nothing")]
        rows.append(suite.score(record(chunks, key_facts=tuple(facts), qid=f"q{q}")))
    aggregate = suite.aggregate(rows)
    assert aggregate["coverage_exact_micro"] == pytest.approx(47 / 53)
    assert round(aggregate["coverage_exact_micro"], 4) == 0.8868
    macro = sum((n - m) / n for n, m in zip(facts_per_question, missed_per_question)) / 10
    assert aggregate["coverage_exact"] == pytest.approx(macro)
    assert aggregate["coverage_exact"] != pytest.approx(47 / 53)


def test_question_without_key_facts_is_skipped(two_questions):
    suite = key_fact_suite()
    empty = suite.score(record([chunk("d")], key_facts=()))
    assert empty == {}
    with_empty = suite.aggregate([suite.score(r) for r in two_questions] + [empty])
    assert with_empty["coverage_exact_micro"] == pytest.approx(3 / 5)
    assert suite.aggregate([empty]) == {}


def test_no_chunks_scores_zero():
    scores = key_fact_suite().score(record([], key_facts=("a", "b"), top_k=5))
    assert scores["coverage_exact"] == 0.0 and scores["position_weighted"] == 0.0 and scores["rank_banded"] == 0.0


@pytest.mark.parametrize("overrides", [
    dict(matchers=["semantic"]),
    dict(rank_bands=[{"max_rank": 3, "weight": 1.0}, {"max_rank": 2, "weight": 0.5}]),
    dict(rank_bands=[]),
    dict(position_weights=[1.0, -0.5]),
    dict(position_fact_score="max"),
])
def test_key_fact_suite_rejects_bad_config(overrides):
    with pytest.raises(ValueError):
        key_fact_suite(**overrides)


# --- QuestionRecord -----------------------------------------------------------------------------


def test_question_record_row(gold_third):
    row = gold_third.row({"retrieval/mrr": 1 / 3})
    assert row["question_id"] == "q"
    assert row["gold_doc_ids"] == ["gold"]
    assert row["gold_rank"] == 3
    assert row["retrieved_chunk_ids"] == ["other#0", "other#1", "gold#0", "gold#1", "x#0"]
    assert row["retrieved_doc_ids"] == ["other", "other", "gold", "gold", "x"]
    assert row["retrieved_scores"] == [1.0, 0.5, 0.333333, 0.25, 0.2]
    assert row["retrieval/mrr"] == pytest.approx(1 / 3)
    assert record([chunk("x")], relevant={"gold": 1}).gold_rank() is None
