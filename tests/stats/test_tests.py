"""The three paired tests equal scipy on random data and refuse degenerate data with a reason."""

import numpy as np
import pytest
from scipy import stats

from harness.stats.paired import PairedSample, align
from harness.stats.permutation import paired_permutation_test
from harness.stats.result import TestResult
from harness.stats.t_test import paired_t_test
from harness.stats.wilcoxon import wilcoxon_signed_rank

ALL_TESTS = [paired_t_test, wilcoxon_signed_rank, lambda s: paired_permutation_test(s, resamples=500, seed=3)]


def _mean_diff(x, y, axis):
    return np.mean(x - y, axis=axis)


def test_t_test_equals_scipy(random_pair):
    sample = align(*random_pair)
    result = paired_t_test(sample)
    if sample.n < 2 or sample.constant():
        assert result.p_value is None and result.reason.startswith("not testable")
        return
    expected = stats.ttest_rel(sample.challenger, sample.champion)
    assert result.reason is None
    assert result.statistic == pytest.approx(expected.statistic, abs=1e-9)
    assert result.p_value == pytest.approx(expected.pvalue, abs=1e-9)
    # the t statistic is the seed's formula mean(d) / (s_d / sqrt(n))
    d = sample.differences
    assert result.statistic == pytest.approx(d.mean() / (d.std(ddof=1) / np.sqrt(d.size)), rel=1e-9)


def test_wilcoxon_equals_scipy(random_pair):
    sample = align(*random_pair)
    result = wilcoxon_signed_rank(sample)
    if sample.n < 2 or sample.all_zero():
        assert result.p_value is None and result.reason.startswith("not testable")
        return
    expected = stats.wilcoxon(sample.challenger - sample.champion)  # scipy's defaults: zero_method="wilcox"
    assert result.statistic == pytest.approx(expected.statistic, abs=1e-9)
    assert result.p_value == pytest.approx(expected.pvalue, abs=1e-9)


@pytest.mark.parametrize("resamples", [50, 999])
def test_permutation_equals_scipy(random_pair, resamples):
    sample = align(*random_pair)
    result = paired_permutation_test(sample, resamples=resamples, seed=11)
    if sample.n < 2 or sample.all_zero():
        assert result.p_value is None and result.reason.startswith("not testable")
        return
    expected = stats.permutation_test(
        (sample.challenger, sample.champion),
        _mean_diff,
        permutation_type="samples",
        vectorized=True,
        n_resamples=resamples,
        alternative="two-sided",
        rng=np.random.default_rng(11),
    )
    assert result.statistic == pytest.approx(np.mean(sample.differences), abs=1e-12)
    assert result.p_value == pytest.approx(expected.pvalue, abs=1e-9)


def test_permutation_is_reproducible_from_the_seed():
    sample = align(*[dict(enumerate(v)) for v in np.random.default_rng(5).uniform(size=(2, 40))])
    a, b = (paired_permutation_test(sample, resamples=200, seed=1) for _ in range(2))
    assert a == b


def test_random_data_is_testable_at_each_size():
    # guards against the comparisons above silently taking the untestable branch everywhere
    for n in (2, 3, 10, 50):
        rng = np.random.default_rng(n)
        sample = align(dict(enumerate(rng.uniform(size=n))), dict(enumerate(rng.uniform(size=n))))
        assert all(test(sample).testable for test in ALL_TESTS)


def _sample(champion, challenger) -> PairedSample:
    return align(dict(enumerate(champion)), dict(enumerate(challenger)))


@pytest.mark.parametrize("test", ALL_TESTS)
@pytest.mark.parametrize("n", [0, 1])
def test_fewer_than_two_pairs_is_not_testable(test, n):
    result = test(_sample([0.5] * n, [0.7] * n))
    assert result == TestResult(None, None, f"not testable: fewer than 2 paired questions (n={n})")


@pytest.mark.parametrize("test", ALL_TESTS)
def test_all_zero_differences_are_not_testable(test):
    result = test(_sample([0.1, 0.5, 0.9, 0.5], [0.1, 0.5, 0.9, 0.5]))
    assert result == TestResult(None, None, "not testable: all differences zero")


def test_t_test_with_zero_variance_differences_states_why():
    sample = _sample([0.2, 0.3, 0.5], [0.3, 0.4, 0.6])  # every question +0.1
    result = paired_t_test(sample)
    assert result.p_value is None and result.statistic is None
    assert "zero variance" in result.reason and result.reason.startswith("not testable")


def test_rank_and_permutation_tests_handle_constant_differences():
    sample = _sample([0.2, 0.3, 0.5, 0.1, 0.0], [0.3, 0.4, 0.6, 0.2, 0.1])
    assert wilcoxon_signed_rank(sample).p_value == pytest.approx(stats.wilcoxon(sample.differences).pvalue)
    assert paired_permutation_test(sample, resamples=100, seed=0).p_value == pytest.approx(2 / 2**5)


def test_all_ties_in_magnitude_with_mixed_signs():
    sample = _sample([0.5] * 6, [0.6, 0.4, 0.6, 0.6, 0.4, 0.6])
    for test in ALL_TESTS:
        result = test(sample)
        assert result.testable and 0.0 < result.p_value <= 1.0


def test_single_nonzero_difference_among_zeros_is_a_real_p_value():
    sample = _sample([0.5, 0.5, 0.5], [0.5, 0.5, 0.9])
    assert wilcoxon_signed_rank(sample).p_value == 1.0
    assert paired_t_test(sample).p_value == pytest.approx(stats.ttest_rel(sample.challenger, sample.champion).pvalue)


def test_non_finite_p_values_from_scipy_become_reasons():
    assert TestResult.from_scipy(0.0, float("nan")) == TestResult(None, None, "not testable: the test returned p=nan")


def test_resamples_is_validated():
    with pytest.raises(ValueError, match="resamples"):
        paired_permutation_test(_sample([0.1, 0.2], [0.3, 0.5]), resamples=0, seed=0)
