"""Equivalence and non-inferiority against the reference libraries (statsmodels, scipy), and the
intervals' agreement with the corrected tests they stand beside."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats
from statsmodels.stats.multitest import multipletests
from statsmodels.stats.power import NormalIndPower
from statsmodels.stats.weightstats import ttost_paired

from harness.stats.equivalence import interval, one_sided_p, tost_p
from harness.stats.margin import judge, questions_for_equivalence, questions_needed
from harness.stats.simultaneous import adjusted_levels


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("margin", [0.01, 0.05])
def test_tost_equals_statsmodels_ttost_paired(seed, margin):
    rng = np.random.default_rng(seed)
    champion = rng.uniform(0, 1, 60)
    challenger = champion + rng.normal(0.003 * seed, 0.04, 60)
    expected = ttost_paired(challenger, champion, -margin, margin)[0]
    assert tost_p(challenger - champion, margin, "t") == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("test", ["t", "wilcoxon", "permutation"])
def test_the_interval_inverts_the_one_sided_tests(test):
    """At each end, the one-sided test of the shifted differences sits at level / 2: just inside it is
    not rejected, just outside it is; so the interval lies inside +-m exactly when TOST rejects at level / 2."""
    rng = np.random.default_rng(3)
    d = rng.normal(0.01, 0.05, 40)
    low, high = interval(d, test, 0.05, resamples=2000, seed=1)
    step = 1e-4
    assert one_sided_p(d, low - step, test, True, 2000, 1) < 0.025 <= one_sided_p(d, low + step, test, True, 2000, 1)
    assert one_sided_p(d, high + step, test, False, 2000, 1) < 0.025 <= one_sided_p(d, high - step, test, False,
                                                                                   2000, 1)
    for margin in (0.01, 0.03, 0.05):
        inside = -margin < low and high < margin
        assert inside == (tost_p(d, margin, test, 2000, 1) < 0.025)


def test_the_wilcoxon_analogue_is_scipys_signed_rank_test_of_the_shifted_differences():
    d = np.random.default_rng(4).normal(0.0, 0.05, 30)
    expected = stats.wilcoxon(d + 0.02, alternative="greater").pvalue
    assert one_sided_p(d, -0.02, "wilcoxon", True) == pytest.approx(expected, rel=1e-12)


def test_the_t_interval_is_scipys():
    d = np.random.default_rng(6).normal(0.02, 0.1, 25)
    expected = stats.ttest_1samp(d, 0.0).confidence_interval(confidence_level=0.99)
    assert interval(d, "t", 0.01) == pytest.approx((expected.low, expected.high), rel=1e-12)


@pytest.mark.parametrize("method", ["holm", "bonferroni", "bh", "none"])
def test_an_interval_leaves_out_zero_exactly_when_its_corrected_p_value_is_below_alpha(method):
    rng = np.random.default_rng(11)
    samples = [rng.normal(effect, 0.1, 50) for effect in (0.0, 0.01, 0.02, 0.03, 0.04, 0.05, 0.08, -0.03)]
    p_values = [stats.ttest_1samp(d, 0.0).pvalue for d in samples]
    corrected = [float(p) for p in (multipletests(p_values, method={"bh": "fdr_bh"}.get(method, method))[1]
                                    if method != "none" else p_values)]
    levels = adjusted_levels(p_values, method, 0.05)
    assert all(level >= 0.05 / len(samples) - 1e-15 for level in levels)  # never narrower than Bonferroni's
    for d, p, level in zip(samples, corrected, levels):
        low, high = interval(d, "t", level)
        assert (low > 0 or high < 0) == (p < 0.05), (method, p, low, high)


@pytest.mark.parametrize(("improvement", "sd", "margin"), [(0.0, 0.27, 0.01), (-0.005, 0.2, 0.02), (0.01, 0.3, 0.01)])
def test_questions_needed_match_statsmodels_normal_power(improvement, sd, margin):
    """Seed 003's minimum sample size for the effect that matters (difference + margin), against
    statsmodels' one-sample normal power at the interval's one-sided level."""
    effect = (improvement + margin) / sd
    expected = NormalIndPower().solve_power(effect_size=effect, alpha=0.05 / 2, power=0.8, ratio=0,
                                            alternative="larger")
    assert questions_needed(improvement, sd, margin, 0.05, 0.8) == int(np.ceil(expected))


def test_questions_for_equivalence_give_the_power_asked_for_in_a_simulation():
    n = questions_for_equivalence(0.1, margin=0.02, level=0.05, power=0.8)
    rng = np.random.default_rng(0)
    shown = 0
    for _ in range(400):
        d = rng.normal(0.0, 0.1, n)
        low, high = interval(d, "t", 0.05)
        shown += -0.02 < low and high < 0.02
    assert 0.75 <= shown / 400 <= 0.9


def test_the_five_verdicts_read_one_interval():
    cases = {(0.01, 0.03): "better", (-0.03, -0.001): "worse", (-0.004, 0.006): "equivalent",
             (-0.004, 0.03): "non_inferior", (-0.03, 0.02): "undecided"}
    for bounds, verdict in cases.items():
        assert judge(sum(bounds) / 2, bounds, 0.01, "higher").verdict == verdict
        flipped = (-bounds[1], -bounds[0])  # lower is better: the same story, mirrored
        assert judge(-sum(bounds) / 2, flipped, 0.01, "lower").verdict == verdict
