"""A family decided at one error budget (harness.stats.family) against scipy, statsmodels and the
rule of harness.stats.margin; each point of the verdicts' review reproduced as fixed."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from harness.stats.correction import correct
from harness.stats.family import decide_family
from harness.stats.margin import judge


def family(differences, test="t", correction="none", alpha=0.05, margin=0.01, **kwargs):
    return decide_family(differences, [margin] * len(differences), ["higher"] * len(differences), test, correction,
                         alpha, **kwargs)


def test_the_interval_is_scipys_t_interval_of_the_mean():
    d = np.random.default_rng(0).normal(0.02, 0.1, 50)
    found = family([d], alpha=0.01)
    low, high = stats.ttest_1samp(d, 0.0).confidence_interval(0.99)
    assert (found.low[0], found.high[0]) == pytest.approx((low, high), rel=1e-10)


@pytest.mark.parametrize("n", [8, 40])
def test_the_p_values_are_scipys(n):
    rng = np.random.default_rng(n)
    d = [rng.normal(0.05, 0.2, n), rng.normal(-0.01, 0.1, n)]
    t = family(d, "t").p
    assert t == pytest.approx([stats.ttest_1samp(x, 0.0).pvalue for x in d], rel=1e-10)
    w = family(d, "wilcoxon").p
    assert w == pytest.approx([stats.wilcoxon(x, zero_method="wilcox").pvalue for x in d], rel=1e-10)
    if n == 8:  # 2**8 sign patterns: both enumerate them all
        exact = [stats.permutation_test((x,), np.mean, permutation_type="samples", n_resamples=10_000).pvalue
                 for x in d]
        assert family(d, "permutation", resamples=10_000).p == pytest.approx(exact, rel=1e-10)


def test_a_random_permutation_test_agrees_with_scipys_within_its_resampling_error():
    d = np.random.default_rng(3).normal(0.03, 0.2, 60)
    ours = family([d], "permutation", resamples=20_000, seed=1).p[0]
    theirs = stats.permutation_test((d,), np.mean, permutation_type="samples", n_resamples=20_000,
                                    rng=np.random.default_rng(2)).pvalue
    assert ours == pytest.approx(theirs, abs=4 * np.sqrt(theirs * (1 - theirs) / 20_000))


@pytest.mark.parametrize("correction", ["holm", "bonferroni", "bh"])
def test_adjusted_p_values_are_statsmodels_and_scale_with_the_familys_share(correction):
    rng = np.random.default_rng(5)
    d = [rng.normal(mu, 0.1, 30) for mu in (0.0, 0.02, 0.05, 0.1)]
    found = family(d, correction=correction)
    assert found.p_adjusted == pytest.approx(correct(found.p, correction))
    half = family(d, correction=correction, share=0.5)
    assert half.p_adjusted == pytest.approx([min(1.0, 2 * p) for p in correct(found.p, correction)])


def test_bonferroni_and_holm_build_every_interval_at_alpha_over_k_and_none_at_alpha():
    d = [np.random.default_rng(k).normal(0, 0.1, 20) for k in range(4)]
    assert family(d, correction="bonferroni").level == family(d, correction="holm").level == pytest.approx(0.0125)
    assert family(d, correction="none").level == 0.05
    assert family(d, correction="holm", share=0.5).level == pytest.approx(0.00625)


def test_bh_steps_up_to_the_largest_r_with_r_claims_at_alpha_r_over_k():
    rng = np.random.default_rng(6)
    clear = [rng.normal(0.2, 0.05, 100) for _ in range(3)]
    unclear = [rng.normal(0.0, 1.0, 10)]  # undecided at any level
    found = family([*clear, *unclear], correction="bh")
    assert found.level == pytest.approx(0.05 * 3 / 4)
    assert [v.verdict for v in found.verdicts] == ["better"] * 3 + ["undecided"]


def test_point_1_a_difference_inside_the_margin_is_equivalent_at_any_sample_size():
    """Truth -0.004, margin 0.01, sd 0.1: at 32,000 questions the interval leaves out 0 and lies
    inside the margin: equivalent, with the reason saying a difference smaller than the margin was shown."""
    d = np.random.default_rng(7).normal(-0.004, 0.1, 32_000)
    [verdict] = family([d]).verdicts
    assert verdict.high < 0 and verdict.verdict == "equivalent"
    assert "a difference smaller than the margin was shown" in verdict.reason
    assert judge(-0.004, (-0.02, -0.001), 0.01, "higher").verdict == "worse"  # reaching -margin: worse
    assert judge(0.004, (-0.02, 0.008), 0.01, "higher").verdict == "undecided"
    assert judge(-4.0, (-8.0, -0.5), 10.0, "lower").verdict == "better"  # lower is better: a drop is better


def test_point_3_a_tie_heavy_metric_reads_the_interval_of_the_mean_whatever_the_test():
    """400 questions, 44 wins, 56 losses, 300 ties: the mean's interval is [-0.079, +0.019], undecided
    under every test (the Wilcoxon interval of the pseudo-median collapsed to ±5e-15: equivalent)."""
    d = np.array([1.0] * 44 + [-1.0] * 56 + [0.0] * 300)
    for test in ("t", "wilcoxon", "permutation"):
        found = family([d], test)
        assert (round(found.low[0], 3), round(found.high[0], 3)) == (-0.079, 0.019)
        assert found.verdicts[0].verdict == "undecided" and found.low[0] < found.high[0]


def test_point_6_permutation_intervals_and_p_values_stay_finite_and_reach_the_corrected_level():
    """30 comparisons: the smallest p of 1,000 permutations (1/1001) could never reach alpha/30; the
    family draws enough for its level, and its intervals are of the mean, finite."""
    rng = np.random.default_rng(8)
    d = [rng.normal(0.1, 0.05, 50) for _ in range(30)]
    found = family(d, "permutation", correction="bonferroni", resamples=1000)
    assert all(np.isfinite(found.low)) and all(np.isfinite(found.high))
    assert max(found.p_adjusted) < 0.05 and {v.verdict for v in found.verdicts} == {"better"}


def test_identical_runs_have_a_one_point_interval_and_no_p_value():
    found = family([np.zeros(20), np.full(20, 0.1)], "t")
    assert found.p == [None, None] and [v.verdict for v in found.verdicts] == ["equivalent", "better"]
    assert (found.low, found.high) == ([0.0, pytest.approx(0.1)], [0.0, pytest.approx(0.1)])
    assert family([np.zeros(20), np.full(20, 0.1)], "wilcoxon").p[0] is None
