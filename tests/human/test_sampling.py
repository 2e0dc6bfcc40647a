"""Export sampling: stratified counts, at least one per category, worst ordering, seeding."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from harness.human.sampling import allocate, draw_sample, sample_random, sample_stratified, sample_worst, strata_of

PREFIX = "answer/category_"
CATEGORIES = ("correct", "wrong_answer", "hallucination", "empty_response", "verbose_answer")


def rows_with(counts: dict[tuple[str, ...], int]) -> list[dict]:
    """Rows flagged with each tuple of categories, ``count`` times; every flag column present."""
    rows = []
    for flags, count in counts.items():
        for _ in range(count):
            row = {"question_id": f"q{len(rows):03d}", "answer": "a", "answer/badness": random.Random(len(rows)).random()}
            row.update({f"{PREFIX}{c}": float(c in flags) for c in CATEGORIES})
            rows.append(row)
    return rows


def test_allocation_is_proportional_with_at_least_one_per_group():
    assert allocate({"a": 50, "b": 30, "c": 15, "d": 5}, 20) == {"a": 10, "b": 6, "c": 3, "d": 1}
    assert allocate({"common": 97, "rare": 1, "other": 2}, 10) == {"common": 8, "rare": 1, "other": 1}
    assert allocate({"a": 3, "b": 2}, 10) == {"a": 3, "b": 2}  # n covers everything
    assert allocate({"a": 5, "empty": 0}, 2) == {"a": 2}
    with pytest.raises(ValueError, match="n=2 is fewer than the 3 non-empty categories"):
        allocate({"a": 5, "b": 5, "c": 5}, 2)


@pytest.mark.parametrize("trial", range(50))
def test_allocation_properties_on_random_sizes(trial):
    rng = random.Random(trial)
    sizes = {f"g{i}": rng.randint(1, 40) for i in range(rng.randint(1, 6))}
    n = rng.randint(len(sizes), sum(sizes.values()))
    quota = allocate(sizes, n)
    assert sum(quota.values()) == n
    assert all(1 <= quota[g] <= sizes[g] for g in sizes)
    total = sum(sizes.values())
    # Within one draw of the exact proportional share, except where the minimum of one lifted it.
    assert all(abs(quota[g] - n * sizes[g] / total) < 1 + 1e-9 or quota[g] == 1 for g in sizes)


def test_stratified_counts_follow_the_categories():
    rows = rows_with({("correct",): 50, ("wrong_answer",): 30, ("hallucination",): 15, ("empty_response",): 5})
    chosen, strata = sample_stratified(rows, 20, seed=0, prefix=PREFIX)
    assert strata == {"correct": (50, 10), "empty_response": (5, 1), "hallucination": (15, 3), "wrong_answer": (30, 6)}
    drawn = Counter(next(c for c in CATEGORIES if r[f"{PREFIX}{c}"] == 1.0) for r in chosen)
    assert drawn == {"correct": 10, "wrong_answer": 6, "hallucination": 3, "empty_response": 1}
    assert len({r["question_id"] for r in chosen}) == 20


def test_a_multi_label_question_counts_in_its_rarest_category():
    rows = rows_with({("wrong_answer",): 40, ("wrong_answer", "hallucination"): 4, ("verbose_answer",): 10})
    strata = strata_of(rows, PREFIX)
    assert {k: len(v) for k, v in strata.items()} == {"hallucination": 4, "verbose_answer": 10, "wrong_answer": 40}
    chosen, _ = sample_stratified(rows, 5, seed=1, prefix=PREFIX)
    assert any(r[f"{PREFIX}hallucination"] == 1.0 for r in chosen)  # the rare failure mode is represented


def test_sampling_is_seeded():
    rows = rows_with({("correct",): 30, ("wrong_answer",): 30, ("hallucination",): 3})
    for strategy in ("stratified", "random"):
        draw = lambda seed: [r["question_id"] for r in draw_sample(rows, strategy, 10, seed, "answer/badness",  # noqa: E731
                                                                   "lower", PREFIX).rows]
        assert draw(0) == draw(0)
        assert draw(0) != draw(1)
    assert [r["question_id"] for r in sample_random(rows, 5, 3)] == [r["question_id"] for r in
                                                                     random.Random(3).sample(rows, 5)]
    assert sample_random(rows, 100, 0) == rows


def test_worst_takes_the_lowest_first_skipping_rows_without_a_value():
    rows = [{"question_id": q, "answer/badness": v} for q, v in
            [("a", 0.5), ("b", 0.1), ("c", None), ("d", 0.1), ("e", 0.9), ("f", 0.3)]]
    rows.append({"question_id": "g"})
    assert [r["question_id"] for r in sample_worst(rows, 4, "answer/badness")] == ["b", "d", "f", "a"]  # ties keep order
    assert [r["question_id"] for r in sample_worst(rows, 2, "answer/badness", "higher")] == ["e", "a"]
    with pytest.raises(ValueError, match="no answered question has a number in column 'answer/f1'"):
        sample_worst(rows, 2, "answer/f1")


def test_stratified_needs_category_columns_and_a_large_enough_n():
    with pytest.raises(ValueError, match="no 'answer/category_\\*' columns"):
        draw_sample([{"question_id": "q", "answer": "a"}], "stratified", 1, 0, "answer/badness", "lower", PREFIX)
    rows = rows_with({("correct",): 5, ("wrong_answer",): 5, ("hallucination",): 5})
    with pytest.raises(ValueError, match="at least one question per category"):
        draw_sample(rows, "stratified", 2, 0, "answer/badness", "lower", PREFIX)
    with pytest.raises(ValueError, match="no answered questions"):
        draw_sample([], "random", 2, 0, "answer/badness", "lower", PREFIX)
