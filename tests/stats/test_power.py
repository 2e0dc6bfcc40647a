import math

import pytest
from statsmodels.stats.power import TTestPower

from harness.stats.power import (
    achieved_power,
    minimum_detectable_effect,
    minimum_detectable_effect_t,
    required_sample_size_t,
    required_sample_size_z,
)


@pytest.mark.parametrize(("d", "n"), [(0.2, 197), (0.5, 32), (0.8, 13)])
def test_seed_003_sample_size_table(d, n):
    assert required_sample_size_z(d, alpha=0.05, power=0.80) == n


def test_rounded_z_values_would_not_reproduce_the_table():
    # why the exact quantiles: (1.96 + 0.84)^2 / 0.2^2 = 196.0 -> 196, the seed says 197
    assert math.ceil(round((1.96 + 0.84) ** 2 / 0.2**2, 9)) == 196


def test_seed_003_hundred_queries_detect_d_028():
    assert round(minimum_detectable_effect(100, alpha=0.05, power=0.80), 2) == 0.28


def test_sample_size_is_symmetric_in_the_sign_of_d():
    assert required_sample_size_z(-0.5, 0.05, 0.8) == 32
    assert required_sample_size_t(-0.5, 0.05, 0.8) == required_sample_size_t(0.5, 0.05, 0.8)


@pytest.mark.parametrize("d", [0.1, 0.2, 0.5, 0.8, 1.5])
@pytest.mark.parametrize(("alpha", "power"), [(0.05, 0.8), (0.01, 0.9)])
def test_t_sample_size_equals_statsmodels(d, alpha, power):
    expected = TTestPower().solve_power(effect_size=d, alpha=alpha, power=power, alternative="two-sided")
    assert required_sample_size_t(d, alpha, power) == pytest.approx(expected, rel=1e-9)
    # the t-based answer needs a few more questions than the normal approximation
    assert required_sample_size_t(d, alpha, power) >= required_sample_size_z(d, alpha, power) - 1


@pytest.mark.parametrize("d", [30.0, 1e3])
def test_huge_effects_need_two_pairs(d):
    assert required_sample_size_t(d, 0.05, 0.8) == 2.0


@pytest.mark.parametrize("d", [3.0, 5.0, 8.0, 10.0])
def test_large_effects_where_statsmodels_solver_fails_are_still_solved(d):
    # statsmodels returns NaN (d >= 8) or an unsolved bound (d = 10 -> 2.0, power 0.73)
    n = required_sample_size_t(d, 0.05, 0.8)
    assert 2.0 < n < 4.0
    assert achieved_power(d, 2, 0.05) < 0.8 <= achieved_power(d, math.ceil(n), 0.05)


@pytest.mark.parametrize(("d", "n"), [(2.0, 100), (3.0, 10), (50.0, 2), (20.0, 5)])
def test_achieved_power_is_finite_where_statsmodels_returns_nan(d, n):
    assert math.isnan(TTestPower().power(effect_size=d, nobs=n, alpha=0.05, alternative="two-sided"))
    assert achieved_power(d, n, 0.05) == pytest.approx(1.0, abs=1e-6)


@pytest.mark.parametrize(("d", "n"), [(0.2, 10), (0.5, 34), (-0.3, 100), (0.0, 20)])
def test_achieved_power_equals_statsmodels(d, n):
    expected = TTestPower().power(effect_size=d, nobs=n, alpha=0.05, alternative="two-sided")
    assert achieved_power(d, n, 0.05) == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("n", [2, 10, 100])
def test_minimum_detectable_effect_t_equals_statsmodels(n):
    expected = TTestPower().solve_power(effect_size=None, nobs=n, alpha=0.05, power=0.8, alternative="two-sided")
    assert minimum_detectable_effect_t(n, 0.05, 0.8) == pytest.approx(expected, rel=1e-9)
    assert achieved_power(minimum_detectable_effect_t(n, 0.05, 0.8), n, 0.05) == pytest.approx(0.8, abs=1e-4)


def test_z_and_t_are_inverse_ideas():
    n = required_sample_size_z(0.35, 0.05, 0.8)
    assert minimum_detectable_effect(n, 0.05, 0.8) <= 0.35 < minimum_detectable_effect(n - 1, 0.05, 0.8)


@pytest.mark.parametrize(
    ("call", "name"),
    [
        (lambda: required_sample_size_z(0.0, 0.05, 0.8), "d"),
        (lambda: required_sample_size_z(math.nan, 0.05, 0.8), "d"),
        (lambda: required_sample_size_z(0.5, 1.5, 0.8), "alpha"),
        (lambda: required_sample_size_t(0.5, 0.05, 1.0), "power"),
        (lambda: achieved_power(0.5, 1, 0.05), "n"),
        (lambda: minimum_detectable_effect(0, 0.05, 0.8), "n"),
        (lambda: minimum_detectable_effect_t(1, 0.05, 0.8), "n"),
    ],
)
def test_arguments_are_validated_by_name(call, name):
    with pytest.raises(ValueError, match=f"^{name} must"):
        call()
