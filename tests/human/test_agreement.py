"""Cohen's kappa against scikit-learn, the seed's formulas and constructed cases."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest
from sklearn.metrics import cohen_kappa_score

from harness.human.agreement import cohen_kappa, pairwise_agreement
from harness.human.annotations import Annotations
from harness.human.ratings import Rating
from harness.human.settings import Dimension

LIKERT = (1, 2, 3, 4, 5)


def seed_kappa(a, b, levels, quadratic: bool) -> float:
    """Seed 003 section 8.3 written out: kappa = (p_o - p_e) / (1 - p_e), with agreement weights
    w(i, j) = 1 - (i - j)^2 / (R - 1)^2 when quadratic (1 on the diagonal, 0 elsewhere if not)."""
    r = len(levels)
    index = {level: i for i, level in enumerate(levels)}
    observed = np.zeros((r, r))
    for x, y in zip(a, b):
        observed[index[x], index[y]] += 1
    observed /= observed.sum()
    expected = np.outer(observed.sum(1), observed.sum(0))
    i, j = np.indices((r, r))
    weights = 1 - (i - j) ** 2 / (r - 1) ** 2 if quadratic else (i == j).astype(float)
    p_o, p_e = (weights * observed).sum(), (weights * expected).sum()
    return (p_o - p_e) / (1 - p_e)


@pytest.mark.parametrize("trial", range(25))
def test_kappa_equals_sklearn_and_the_seed_formula_on_random_ratings(trial):
    rng = random.Random(trial)
    levels = LIKERT if trial % 3 else tuple(range(1, 11))
    n = rng.randint(5, 60)
    a = [rng.choice(levels) for _ in range(n)]
    b = [x if rng.random() < 0.5 else rng.choice(levels) for x in a]  # correlated raters
    for weights in (None, "quadratic"):
        expected = cohen_kappa_score(a, b, labels=list(levels), weights=weights)
        assert cohen_kappa(a, b, levels, weights) == pytest.approx(expected, abs=1e-12)
        assert cohen_kappa(a, b, levels, weights) == pytest.approx(seed_kappa(a, b, levels, weights == "quadratic"))


def test_the_seed_weight_matrix_for_five_points():
    # w(1,2) = 0.938, w(1,3) = 0.750, w(1,4) = 0.438, w(1,5) = 0 (seed 003 section 8.3)
    r = 5
    weights = [1 - (0 - j) ** 2 / (r - 1) ** 2 for j in range(r)]
    assert [round(w, 3) for w in weights] == [1.0, 0.938, 0.75, 0.438, 0.0]


def test_labelled_scales_and_unused_levels():
    a = ["PASS", "FAIL", "PARTIAL", "PASS", "FAIL", "PASS"]
    b = ["PASS", "PARTIAL", "PARTIAL", "PASS", "FAIL", "PARTIAL"]
    levels = ("FAIL", "PARTIAL", "PASS")
    assert cohen_kappa(a, b, levels, "quadratic") == pytest.approx(
        cohen_kappa_score(a, b, labels=list(levels), weights="quadratic"))
    # The full scale matters for weighted kappa: ratings 1-2 on a 1-5 scale are close, not opposite.
    x, y = [1, 2, 1, 2, 1], [2, 2, 1, 1, 1]
    on_scale = cohen_kappa(x, y, LIKERT, "quadratic")
    assert on_scale == pytest.approx(cohen_kappa_score(x, y, labels=list(LIKERT), weights="quadratic"))
    assert on_scale == pytest.approx(seed_kappa(x, y, LIKERT, True))


def test_constructed_cases():
    assert cohen_kappa([1, 2, 3, 4, 5], [1, 2, 3, 4, 5], LIKERT) == 1.0  # perfect agreement
    assert cohen_kappa([1, 2, 3, 4, 5], [1, 2, 3, 4, 5], LIKERT, "quadratic") == 1.0
    # Agreement exactly at chance: p_o = 0.5 = p_e.
    assert cohen_kappa([1, 1, 2, 2], [1, 2, 1, 2], LIKERT) == pytest.approx(0.0)
    # Systematic disagreement is worse than chance.
    assert cohen_kappa([1, 5, 1, 5], [5, 1, 5, 1], LIKERT) == pytest.approx(-1.0)
    assert cohen_kappa([1, 5, 1, 5], [5, 1, 5, 1], LIKERT, "quadratic") == pytest.approx(-1.0)
    # Both annotators gave everything the same level: chance agreement is 1, kappa undefined.
    assert math.isnan(cohen_kappa([4, 4, 4], [4, 4, 4], LIKERT))
    with pytest.raises(ValueError, match="equally long"):
        cohen_kappa([1, 2], [1], LIKERT)


def test_pairwise_agreement_covers_every_pair_on_shared_questions(settings):
    dims = {"relevance": Dimension("relevance", "?", LIKERT, tuple("abcde"))}
    ratings = {
        "ann": {"q1": 5, "q2": 4, "q3": 2, "q4": 1, "q5": 3},
        "bob": {"q1": 5, "q2": 3, "q3": 2, "q4": 2, "q5": 3},
        "cy": {"q1": 4, "q2": 4, "q3": 1},  # shares 3 questions with each
        "dee": {"q1": 5, "q2": 5},  # too few shared questions (min_pairs = 3)
    }
    items = [Rating(q, who, {"relevance": v}, f"{who}.csv:{i}")
             for who, by_q in ratings.items() for i, (q, v) in enumerate(by_q.items())]
    result = pairwise_agreement(Annotations(items, dims), settings)
    assert [(r.annotator_a, r.annotator_b, r.n) for r in result] == [("ann", "bob", 5), ("ann", "cy", 3),
                                                                    ("bob", "cy", 3)]
    ann_bob = result[0]
    a, b = list(ratings["ann"].values()), list(ratings["bob"].values())
    assert ann_bob.kappa == pytest.approx(cohen_kappa_score(a, b, labels=list(LIKERT)))
    assert ann_bob.kappa_quadratic == pytest.approx(cohen_kappa_score(a, b, labels=list(LIKERT), weights="quadratic"))
    assert ann_bob.observed == pytest.approx(3 / 5)
    assert ann_bob.kappa_label == settings.kappa_label(ann_bob.kappa)
    assert ann_bob.pair == "ann_vs_bob"
