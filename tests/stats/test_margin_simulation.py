"""Simulations with known truth, 1,000 sweeps each: how often the verdicts a sweep prints are wrong.

Each sweep draws per-question differences of K challengers against the champion, corrects the
family with Holm (the default), builds each interval at its level and reads the verdict at the
margin: the same functions :func:`harness.stats.sweep.compare_sweep` calls. The figures page quotes
these rates (``python -m pytest tests/stats/test_margin_simulation.py -s``).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from harness.stats.equivalence import interval
from harness.stats.margin import AS_GOOD, judge, questions_for_equivalence
from harness.stats.simultaneous import adjusted_levels
from harness.stats.spec import MetricSpec
from harness.stats.sweep import compare_sweep

SWEEPS = 1000
ALPHA = 0.05
MARGIN = 0.01
# The rate of an event that happens with probability alpha, seen in 1,000 sweeps, stays below this
# 99.9% of the time: the assertions allow sampling noise, not a worse error rate.
CEILING = ALPHA + 3.1 * math.sqrt(ALPHA * (1 - ALPHA) / SWEEPS)


def verdicts(truths: list[float], sd: float, n: int, rng: np.random.Generator, correction: str = "holm") -> list[str]:
    samples = [rng.normal(truth, sd, n) for truth in truths]
    p_values = [float(stats.ttest_1samp(d, 0.0).pvalue) for d in samples]
    levels = adjusted_levels(p_values, correction, ALPHA)
    return [judge(float(d.mean()), interval(d, "t", level), MARGIN, "higher", float(d.std(ddof=1)), n, level).verdict
            for d, level in zip(samples, levels)]


def test_a_configuration_truly_005_worse_is_a_ship_candidate_in_at_most_alpha_of_sweeps_at_84_questions():
    """The demo's size and spread (sd of ndcg@5 differences ~0.27): 0.05 worse is rarely shown worse
    at n = 84, but it must not be called as good either."""
    rng = np.random.default_rng(0)
    seen = [verdicts([-0.05, 0.0, 0.0], sd=0.27, n=84, rng=rng)[0] for _ in range(SWEEPS)]
    candidate = sum(v in AS_GOOD for v in seen) / SWEEPS
    print(f"\n0.05 worse, n=84, sd 0.27: ship candidate in {candidate:.3f} of sweeps; "
          f"undecided {seen.count('undecided') / SWEEPS:.3f}, worse {seen.count('worse') / SWEEPS:.3f}")
    assert candidate <= CEILING
    assert set(seen) <= {"undecided", "worse", *AS_GOOD}


def test_within_a_quarter_of_the_margin_is_equivalent_once_there_are_enough_questions():
    rng = np.random.default_rng(1)
    sd = 0.05
    n = questions_for_equivalence(sd, MARGIN - MARGIN / 4, ALPHA / 3, 0.8)  # the family's level, margin left
    seen = [verdicts([MARGIN / 4, 0.0, -MARGIN / 4], sd=sd, n=n, rng=rng)[0] for _ in range(SWEEPS)]
    rate = seen.count("equivalent") / SWEEPS
    print(f"\nwithin margin/4, n={n}: equivalent in {rate:.3f} of sweeps")
    assert rate >= 0.8 - 3.1 * math.sqrt(0.16 / SWEEPS)


@pytest.mark.parametrize("others", [[], [0.3, -0.3, 0.2, 0.5]], ids=["alone", "beside-clear-differences"])
def test_claimed_equivalence_outside_the_margin_stays_at_or_below_alpha_family_wise(others):
    """Four challengers exactly at the margin (the hardest truth: +m, -m, +m, -m), with or without
    challengers that truly differ (which Holm rejects, loosening the levels of the rest): a sweep
    makes a false claim when it calls any of the four equivalent, or one at -m non-inferior."""
    rng = np.random.default_rng(2)
    boundary = [MARGIN, -MARGIN, MARGIN, -MARGIN]
    false_claims = 0
    for _ in range(SWEEPS):
        seen = verdicts([*boundary, *others], sd=0.03, n=200, rng=rng)[:len(boundary)]
        false_claims += any(v == "equivalent" or (truth < 0 and v == "non_inferior")
                            for v, truth in zip(seen, boundary))
    rate = false_claims / SWEEPS
    print(f"\nat the margin ({'with' if others else 'without'} clear differences): a false claim of equivalence or "
          f"non-inferiority in {rate:.3f} of sweeps")
    assert rate <= CEILING


def test_compare_sweep_reads_the_same_verdicts_as_the_simulation():
    """The simulation's shortcut is the sweep's own path: compare_sweep on one drawn sweep agrees."""
    rng = np.random.default_rng(5)
    ids = [f"q{i}" for i in range(84)]
    champion = rng.uniform(0, 1, 84)
    challengers = {f"c{k}": champion + rng.normal(truth, 0.05, 84) for k, truth in enumerate((-0.05, 0.0, 0.03))}
    spec = MetricSpec("m", "higher", "primary", MARGIN)
    result = compare_sweep({"m": dict(zip(ids, champion))}, {k: {"m": dict(zip(ids, v))} for k, v in challengers.items()},
                           [spec], ALPHA, "t", 10, 0, 0.8, "holm")
    differences = [v - champion for v in challengers.values()]
    p_values = [float(stats.ttest_1samp(d, 0.0).pvalue) for d in differences]
    for c, d, level in zip(result.challengers, differences, adjusted_levels(p_values, "holm", ALPHA)):
        [m] = c.metrics
        assert (m.ci_low, m.ci_high) == pytest.approx(interval(d, "t", level), rel=1e-9)
        assert m.verdict == judge(float(d.mean()), interval(d, "t", level), MARGIN, "higher").verdict
