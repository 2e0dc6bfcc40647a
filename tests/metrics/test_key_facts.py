"""Tests for harness.metrics.key_facts (seed 000 worked cases)."""

import pytest

from harness.metrics.key_facts import (
    MATCHERS,
    coverage,
    exact_match,
    facts_found,
    fuzzy_match,
    position_weighted_coverage,
    rank_banded_recall,
)

WEIGHTS = [1.0, 0.9, 0.7, 0.5, 0.3]
BANDS = [(1, 1.0), (3, 0.7), (5, 0.5)]
JWT_TEXT = "JWT access tokens: max 3600 seconds from iat, then refresh."
JWT_FACTS = ["3600 seconds", "max 3600 seconds from iat", "All tokens expire after 3600 seconds"]


def test_jwt_example_exact():
    assert facts_found(JWT_FACTS, [JWT_TEXT], exact_match) == [True, True, False]
    assert coverage(JWT_FACTS, [JWT_TEXT], exact_match) == pytest.approx(2 / 3)


def test_jwt_example_fuzzy():
    # "all", "expire" and "after" are absent from the text, so still False.
    assert facts_found(JWT_FACTS, [JWT_TEXT], fuzzy_match) == [True, True, False]
    # Once every word occurs somewhere (in any order), fuzzy matches.
    text = JWT_TEXT + " After that, all of them expire."
    assert fuzzy_match("All tokens expire after 3600 seconds", text)
    assert not exact_match("All tokens expire after 3600 seconds", text)


def test_fuzzy_connection_pool():
    text = "Database: PostgreSQL configured with 100 connection pool size."
    assert not exact_match("100 connections", text)
    # "connections" is not a substring of "connection pool": fuzzy fails too.
    assert not fuzzy_match("100 connections", text)
    # Word order does not matter, and words only need to be substrings.
    assert fuzzy_match("connection 100", text)
    assert fuzzy_match("100 connect", text)
    assert fuzzy_match("100 connections", "Pool of 100 connections max.")


def test_fuzzy_single_word_falls_back_to_exact():
    assert not fuzzy_match("connections", "100 connection pool")
    assert fuzzy_match("connection", "100 connection pool")
    # Words are substrings, not tokens: "port 80" matches "support 8080".
    assert fuzzy_match("port 80", "support 8080")


def test_matching_is_case_insensitive():
    assert exact_match("PostgreSQL", "uses postgresql 15")
    assert fuzzy_match("POSTGRESQL pool", "Postgresql connection Pool")


def test_matchers_lookup():
    assert MATCHERS == {"exact": exact_match, "fuzzy": fuzzy_match}


def test_coverage_uses_combined_text():
    chunks = ["token lifetime", "is 3600 seconds"]
    # The space join lets an exact fact span two chunks.
    assert coverage(["lifetime is 3600"], chunks, exact_match) == 1.0
    assert position_weighted_coverage(["lifetime is 3600"], chunks, WEIGHTS, exact_match) == 0.0
    assert coverage(["a", "b", "z", "q"], ["a b", "c"], exact_match) == 0.5
    assert coverage(["a"], [], exact_match) == 0.0


@pytest.mark.parametrize(
    "fn, extra",
    [(coverage, ()), (position_weighted_coverage, (WEIGHTS,)), (rank_banded_recall, (BANDS,))],
)
def test_empty_facts_rejected(fn, extra):
    with pytest.raises(ValueError, match="facts must not be empty"):
        fn([], ["x"], *extra, exact_match)


def _chunks_with_fact_at(ranks, n=6, fact="3600 seconds"):
    """n filler chunks; the fact appears in those at the given 1-based ranks."""
    return [f"chunk {i} {fact if i in ranks else 'filler'}" for i in range(1, n + 1)]


@pytest.mark.parametrize("rank, expected", [(1, 1.0), (2, 0.9), (3, 0.7), (5, 0.3), (6, 0.0)])
def test_position_weights_first_hit(rank, expected):
    chunks = _chunks_with_fact_at({rank})
    score = position_weighted_coverage(["3600 seconds"], chunks, WEIGHTS, exact_match)
    assert score == pytest.approx(expected)


def test_position_weights_first_hit_uses_best_rank_and_averages():
    chunks = _chunks_with_fact_at({3, 1}) + ["refresh token"]
    facts = ["3600 seconds", "refresh token", "missing"]
    # 1.0 (rank 1), 0.0 (rank 7, beyond weights), 0.0 (absent)
    assert position_weighted_coverage(facts, chunks, WEIGHTS, exact_match) == pytest.approx(1 / 3)


def test_position_weights_sum_mode():
    chunks = _chunks_with_fact_at({1, 3})
    score = position_weighted_coverage(["3600 seconds"], chunks, WEIGHTS, exact_match, "sum")
    assert score == pytest.approx(1.7)
    chunks = _chunks_with_fact_at({5, 6})  # rank 6 has no weight
    score = position_weighted_coverage(["3600 seconds"], chunks, WEIGHTS, exact_match, "sum")
    assert score == pytest.approx(0.3)


def test_position_weights_use_match_function():
    chunks = ["filler", "100 connection pool"]
    assert position_weighted_coverage(["connection 100"], chunks, WEIGHTS, fuzzy_match) == 0.9
    assert position_weighted_coverage(["connection 100"], chunks, WEIGHTS, exact_match) == 0.0


def test_position_weights_validation():
    with pytest.raises(ValueError, match="fact_score .* got 'max'"):
        position_weighted_coverage(["x"], ["x"], WEIGHTS, exact_match, "max")
    with pytest.raises(ValueError, match="weights must be >= 0, got -0.1"):
        position_weighted_coverage(["x"], ["x"], [1.0, -0.1], exact_match)
    with pytest.raises(TypeError, match="match must be callable"):
        position_weighted_coverage(["x"], ["x"], WEIGHTS, "exact")


@pytest.mark.parametrize(
    "ranks, expected",
    [({1}, 1.0), ({2}, 0.7), ({3}, 0.7), ({4}, 0.5), ({5}, 0.5), ({6}, 0.0), (set(), 0.0),
     ({4, 2}, 0.7)],
)
def test_rank_banded_recall(ranks, expected):
    chunks = _chunks_with_fact_at(ranks)
    assert rank_banded_recall(["3600 seconds"], chunks, BANDS, exact_match) == expected


def test_rank_banded_recall_mean_over_facts():
    chunks = ["alpha", "beta", "gamma", "delta"]
    facts = ["alpha", "gamma", "delta", "omega"]
    expected = (1.0 + 0.7 + 0.5 + 0.0) / 4
    assert rank_banded_recall(facts, chunks, BANDS, exact_match) == pytest.approx(expected)


@pytest.mark.parametrize(
    "bands",
    [[(0, 1.0)], [(1, 1.0), (1, 0.5)], [(3, 0.7), (1, 1.0)], []],
)
def test_rank_banded_recall_rejects_bad_bands(bands):
    with pytest.raises(ValueError, match="bands"):
        rank_banded_recall(["x"], ["x"], bands, exact_match)
