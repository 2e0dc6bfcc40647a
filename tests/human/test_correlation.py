"""Spearman's rho against scipy and the seed's formula; missing values are skipped, never zeros."""

from __future__ import annotations

import math
import random

import pytest
from scipy.stats import spearmanr

from harness.human.annotations import Annotations
from harness.human.ratings import Rating
from harness.human.correlation import correlations, spearman
from harness.human.settings import Dimension
from harness.human.table import RunTable

LIKERT = (1, 2, 3, 4, 5)


@pytest.mark.parametrize("trial", range(20))
def test_spearman_equals_scipy_with_ties(trial):
    rng = random.Random(trial)
    n = rng.randint(4, 50)
    x = [rng.choice([1, 2, 3, 4, 5]) for _ in range(n)]  # Likert ratings: many ties
    y = [v + rng.gauss(0, 1.5) for v in x]
    expected = spearmanr(x, y)
    rho, p = spearman(x, y)
    assert rho == pytest.approx(expected.statistic) and p == pytest.approx(expected.pvalue)


def test_spearman_equals_the_seed_formula_without_ties():
    rng = random.Random(3)
    x = rng.sample(range(100), 12)
    y = rng.sample(range(100), 12)
    rank = lambda v: {value: i for i, value in enumerate(sorted(v), start=1)}  # noqa: E731
    rx, ry = rank(x), rank(y)
    n = len(x)
    seed = 1 - 6 * sum((rx[a] - ry[b]) ** 2 for a, b in zip(x, y)) / (n * (n * n - 1))  # seed 003 section 8.4
    assert spearman(x, y)[0] == pytest.approx(seed)


def test_constant_input_is_undefined_not_zero():
    rho, p = spearman([1, 2, 3], [4, 4, 4])
    assert math.isnan(rho) and math.isnan(p)


def test_correlations_use_the_mean_rating_and_skip_missing_values():
    dims = {"relevance": Dimension("relevance", "?", LIKERT, tuple("abcde"))}
    human_a = {"q1": 5, "q2": 4, "q3": 2, "q4": 1, "q5": 3, "q6": 2}
    human_b = {"q1": 4, "q2": 4, "q3": 3, "q4": 1, "q5": 2, "q6": 1}
    items = [Rating(q, who, {"relevance": v}, "x") for who, by_q in (("a", human_a), ("b", human_b))
             for q, v in by_q.items()]
    f1 = {"q1": 0.9, "q2": 0.7, "q3": 0.4, "q4": 0.0, "q5": 0.5, "q6": 0.2}
    judge = {"q1": 9.0, "q2": None, "q3": 3.0, "q5": 6.0, "q6": 2.0}  # q2 null, q4 absent: both skipped
    rows = [{"question_id": q, "answer/f1": f1[q], "answer": "x", "retrieved_chunk_ids": ["c"],
             **({"judge/answer_score": judge[q]} if q in judge else {})} for q in f1]
    rows.append({"question_id": "q7", "answer/f1": 1.0})  # not rated: ignored
    table = RunTable("run", path=None, rows=rows)
    result = {c.column: c for c in correlations(Annotations(items, dims), table, min_pairs=3)}
    assert set(result) == {"answer/f1", "judge/answer_score"}  # lists and text are not numeric columns
    mean = {q: (human_a[q] + human_b[q]) / 2 for q in human_a}
    qs = list(f1)
    assert result["answer/f1"].n == 6
    assert result["answer/f1"].rho == pytest.approx(spearmanr([mean[q] for q in qs], [f1[q] for q in qs]).statistic)
    judged = ["q1", "q3", "q5", "q6"]
    assert result["judge/answer_score"].n == 4
    assert result["judge/answer_score"].rho == pytest.approx(
        spearmanr([mean[q] for q in judged], [judge[q] for q in judged]).statistic)
    assert "judge/answer_score" not in {c.column for c in correlations(Annotations(items, dims), table, min_pairs=5)}
