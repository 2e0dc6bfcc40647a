"""Judge bias (seed 000's +1.8) and prediction-powered inference: by hand, against ppi_py, simulated."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import norm

from harness.human.annotations import Annotations
from harness.human.ratings import Rating
from harness.human.calibration import calibrate, ppi_mean
from harness.human.settings import Dimension, JudgeColumn
from harness.human.table import RunTable

# Seed 000 appendix: the ten questions graded 1-10 by Claude Haiku and by a human.
HAIKU = [10, 5, 8, 9, 5, 9, 6, 8, 7, 5]
HUMAN = [10, 3, 4, 9, 2, 10, 2, 6, 7, 1]
GRADE = Dimension("grade", "?", tuple(range(1, 11)), tuple("abcdefghij"), JudgeColumn("judge/manual_grade", 1, 10))


def annotations_of(ratings: dict[str, dict[str, int]], dim: Dimension = GRADE) -> Annotations:
    items = [Rating(q, who, {dim.name: v}, "x") for who, by_q in ratings.items() for q, v in by_q.items()]
    return Annotations(items, {dim.name: dim})


def table_of(judge: dict[str, float | None], column: str = "judge/manual_grade") -> RunTable:
    return RunTable("run", path=None, rows=[{"question_id": q, column: v} for q, v in judge.items()])


def test_seed_000_haiku_over_grades_by_1_8_points():
    qs = [f"q{i}" for i in range(10)]
    human = dict(zip(qs, HUMAN))
    annotations = annotations_of({"human": human, "second": human})
    [result], notes = calibrate(annotations, table_of(dict(zip(qs, HAIKU))), confidence=0.95, min_pairs=3)
    assert not notes
    assert result.judge_mean_labelled == pytest.approx(7.2) and result.human_mean == pytest.approx(5.4)
    assert result.bias == pytest.approx(1.8)
    # Every judged question is labelled: the corrected estimate is the human mean.
    assert result.ppi_mean == pytest.approx(5.4)


def test_ppi_equals_the_hand_computation_and_ppi_py():
    rng = np.random.default_rng(1)
    y = rng.integers(1, 6, size=30).astype(float)
    f_labelled = np.clip(y + 1 + rng.normal(0, 0.8, 30), 1, 5)
    f_all = np.concatenate([f_labelled, np.clip(rng.integers(1, 6, 470) + 1 + rng.normal(0, 0.8, 470), 1, 5)])
    theta, low, high = ppi_mean(y, f_labelled, f_all, confidence=0.9)
    # theta = mean_N(f) - mean_n(f - Y); se^2 = var_N(f)/N + var_n(f - Y)/n (population variances)
    hand = f_all.mean() - (f_labelled - y).mean()
    se = np.sqrt(f_all.var() / len(f_all) + (f_labelled - y).var() / len(y))
    z = norm.ppf(0.95)
    assert theta == pytest.approx(hand)
    assert (low, high) == pytest.approx((hand - z * se, hand + z * se))
    import ppi_py

    assert theta == pytest.approx(float(ppi_py.ppi_mean_pointestimate(y, f_labelled, f_all, lam=1)[0]))


def test_calibration_rescales_the_judge_and_skips_missing_scores():
    dim = Dimension("relevance", "?", (1, 2, 3, 4, 5), tuple("abcde"), JudgeColumn("judge/answer_score", 0, 10))
    human = {"q1": 5, "q2": 4, "q3": 1, "q4": 2}
    judge = {"q1": 10.0, "q2": 10.0, "q3": 5.0, "q4": None, "q5": 0.0, "q6": 7.5}  # q4 unjudged, not 0
    [result], _ = calibrate(annotations_of({"a": human, "b": human}, dim),
                            table_of(judge, "judge/answer_score"), 0.95, 3)
    on_scale = {q: 1 + v * 4 / 10 for q, v in judge.items() if v is not None}  # 0-10 -> 1-5
    labelled = ["q1", "q2", "q3"]
    assert result.n_labelled == 3 and result.n_judged == 5
    assert result.judge_mean_labelled == pytest.approx(np.mean([on_scale[q] for q in labelled]))
    assert result.bias == pytest.approx(np.mean([on_scale[q] - human[q] for q in labelled]))
    assert result.judge_mean == pytest.approx(np.mean(list(on_scale.values())))
    assert result.ppi_mean == pytest.approx(result.judge_mean - result.bias)


def test_too_few_labelled_questions_and_out_of_range_scores():
    annotations = annotations_of({"a": {"q1": 3, "q2": 4}, "b": {"q1": 3, "q2": 4}})
    results, notes = calibrate(annotations, table_of({"q1": 5.0, "q2": 6.0}), 0.95, min_pairs=3)
    assert results == [] and "2 rated question(s) have a 'judge/manual_grade' score (need 3)" in notes[0]
    with pytest.raises(ValueError, match="question 'q2': judge/manual_grade = 12.0 lies outside"):
        calibrate(annotations, table_of({"q1": 5.0, "q2": 12.0}), 0.95, min_pairs=2)


def test_simulated_biased_judge_is_corrected_with_nominal_coverage():
    """A judge that over-grades by 1.5 points on average (as Haiku did by 1.8): the naive judge
    mean misses the true mean by the bias; the PPI estimate is unbiased, its 90% interval covers
    the truth about 90% of the time, and it is narrower than the interval from the humans alone."""
    from ppi_py import classical_mean_ci

    rng = np.random.default_rng(2024)
    trials, big_n, n, true_mean = 1000, 2000, 100, 3.0
    covered, errors, naive, widths, human_widths = 0, [], [], [], []
    for _ in range(trials):
        y_all = np.clip(np.round(rng.normal(true_mean, 1.0, big_n)), 1, 5)
        f_all = y_all + 1.5 + rng.normal(0, 0.7, big_n)  # biased, noisy judge on every question
        labelled = rng.choice(big_n, n, replace=False)
        theta, low, high = ppi_mean(y_all[labelled], f_all[labelled], f_all, confidence=0.9)
        expected = _truncated_rounded_mean(true_mean)
        covered += low <= expected <= high
        errors.append(theta - expected)
        naive.append(f_all.mean() - expected)
        widths.append(high - low)
        human_low, human_high = classical_mean_ci(y_all[labelled], alpha=0.1)
        human_widths.append(human_high - human_low)
    assert np.mean(naive) == pytest.approx(1.5, abs=0.02)
    assert abs(np.mean(errors)) < 0.01
    assert 0.87 <= covered / trials <= 0.93
    assert np.mean(widths) < 0.8 * np.mean(human_widths)


def _truncated_rounded_mean(mu: float) -> float:
    """E[clip(round(N(mu, 1)), 1, 5)], the population mean of the simulated ratings."""
    edges = np.array([-np.inf, 1.5, 2.5, 3.5, 4.5, np.inf])
    probabilities = np.diff(norm.cdf(edges, loc=mu))
    return float(np.dot(probabilities, [1, 2, 3, 4, 5]))
