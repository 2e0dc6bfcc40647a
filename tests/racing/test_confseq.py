"""The confidence sequences against a hand-worked example and their coverage by simulation."""

import math

import numpy as np
import pytest

from harness.racing.confseq import (betting_lower, difference_log_e_process, difference_lower_bound,
                                    empirical_bernstein_lower, hoeffding_lower, log_e_process, running_lower_bound)


def test_empirical_bernstein_first_two_steps_by_hand():
    # x = [1, 0], alpha = 0.05; Waudby-Smith & Ramdas (2023), Theorem 2, one-sided (log(1/alpha)).
    log_term = math.log(20)
    lam1 = min(math.sqrt(2 * log_term / (0.25 * 1 * math.log(2))), 0.5)  # sigma2_0 = 1/4
    psi = lambda lam: (-math.log(1 - lam) - lam) / 4  # noqa: E731
    v1 = 4 * (1 - 0.5) ** 2  # mu_0 = 1/2
    first = (lam1 * 1) / lam1 - (log_term + v1 * psi(lam1)) / lam1
    mu1 = (0.5 + 1) / 2
    sigma2_1 = (0.25 + (1 - mu1) ** 2) / 2
    lam2 = min(math.sqrt(2 * log_term / (sigma2_1 * 2 * math.log(3))), 0.5)
    v2 = 4 * (0 - mu1) ** 2
    second = (lam1 * 1 + lam2 * 0) / (lam1 + lam2) - (log_term + v1 * psi(lam1) + v2 * psi(lam2)) / (lam1 + lam2)
    bounds = empirical_bernstein_lower([1.0, 0.0], alpha=0.05)
    assert bounds == pytest.approx([first, second], abs=1e-12)
    assert second == pytest.approx(-2.652664, abs=1e-6)


def test_hoeffding_by_hand():
    log_term = math.log(10)
    lams = [min(math.sqrt(8 * log_term / (t * math.log(1 + t))), 1.0) for t in (1, 2, 3)]
    x = [0.2, 0.9, 0.4]
    expected = [sum(l * v for l, v in zip(lams[:t], x[:t])) / sum(lams[:t])
                - (log_term + sum(l * l / 8 for l in lams[:t])) / sum(lams[:t]) for t in (1, 2, 3)]
    assert hoeffding_lower(x, alpha=0.1) == pytest.approx(expected, abs=1e-12)


@pytest.mark.slow
@pytest.mark.parametrize("test", ["betting", "empirical_bernstein", "hoeffding"])
def test_time_uniform_coverage(test):
    # The bound must stay below the true mean at every time at once in >= 1 - alpha of the streams.
    rng = np.random.default_rng(7)
    alpha, mean = 0.2, 0.3
    misses = sum(running_lower_bound(rng.binomial(1, mean, size=400).astype(float), alpha, test) > mean
                 for _ in range(400))
    assert misses / 400 <= alpha


def test_bound_tightens_with_evidence():
    rng = np.random.default_rng(1)
    x = rng.beta(5, 2, size=2000)  # mean 5/7
    bounds = empirical_bernstein_lower(x, 0.05)
    assert bounds[99] < bounds[-1] < 5 / 7
    assert bounds[-1] > 5 / 7 - 0.05
    # with small variance, empirical Bernstein is tighter than Hoeffding
    assert bounds[-1] > hoeffding_lower(x, 0.05)[-1]


def test_difference_bound_maps_the_range():
    better, worse = np.full(500, 0.9), np.full(500, 0.1)
    bound = difference_lower_bound(better, worse, 0.0, 1.0, 0.05, "empirical_bernstein")
    assert 0.7 < bound < 0.8
    # a range twice as wide carries the same data to the same bound in its own units, doubled
    assert difference_lower_bound(better * 2, worse * 2, 0.0, 2.0, 0.05, "empirical_bernstein") == \
        pytest.approx(2 * bound)


def test_refuses_values_outside_bounds():
    with pytest.raises(ValueError, match="outside race.bounds"):
        difference_lower_bound([1.5], [0.2], 0.0, 1.0, 0.05, "hoeffding")
    with pytest.raises(ValueError, match="race.test"):
        running_lower_bound([0.5], 0.05, "t")


def test_betting_wealth_by_hand():
    # x = [0.9, 0.8], alpha = 0.1: candidate m = 0.5 is rejected iff the aGRAPA wealth reaches 10.
    mu0, s0 = 0.5, 0.25
    lam1 = min(max((mu0 - 0.5) / (s0 + (mu0 - 0.5) ** 2), 0), 0.5 / 0.5)  # no edge before any data: 0
    mu1 = (0.5 + 0.9) / 2
    s1 = (0.25 + (0.9 - mu1) ** 2) / 2
    lam2 = min(max((mu1 - 0.5) / (s1 + (mu1 - 0.5) ** 2), 0), 0.5 / 0.5)
    wealth = (1 + lam1 * (0.9 - 0.5)) * (1 + lam2 * (0.8 - 0.5))
    assert lam1 == 0 and wealth == pytest.approx(1 + lam2 * 0.3)
    assert wealth < 10 and betting_lower([0.9, 0.8], 0.1) < 0.5
    # a long run of 0.9s rejects every m up to nearly 0.9, never beyond it
    bound = betting_lower([0.9] * 400, 0.1)
    assert 0.8 < bound < 0.9


def test_betting_is_tighter_than_empirical_bernstein_on_few_questions():
    x = np.random.default_rng(0).beta(5, 2, size=40)
    assert betting_lower(x, 0.05) > running_lower_bound(x, 0.05, "empirical_bernstein")


def test_betting_e_process_is_the_hand_worked_wealth():
    mu1 = (0.5 + 0.9) / 2
    s1 = (0.25 + (0.9 - mu1) ** 2) / 2
    lam2 = min((mu1 - 0.5) / (s1 + (mu1 - 0.5) ** 2), 1.0)
    assert np.exp(log_e_process([0.9, 0.8], 0.5, 0.1, "betting")) == pytest.approx([1.0, 1 + lam2 * 0.3])


@pytest.mark.parametrize("test", ["empirical_bernstein", "hoeffding"])
def test_e_process_reaches_one_over_alpha_exactly_where_the_bound_passes_the_mean(test):
    # The closed-form bound L_t is the m where the log wealth equals log(1/alpha): the two readings
    # of the same gambler agree at every t, for nulls on either side of the bound.
    x = np.random.default_rng(4).beta(4, 2, size=300)
    bounds = {"empirical_bernstein": empirical_bernstein_lower, "hoeffding": hoeffding_lower}[test](x, 0.05)
    for m in (0.3, 0.5, 0.6, 0.64):
        wealth = log_e_process(x, m, 0.05, test)
        assert np.array_equal(wealth >= np.log(20), bounds >= m)
    assert (bounds >= 0.5).any() and not (bounds >= 0.64).all()


def test_betting_e_process_agrees_with_the_betting_bound():
    x = np.random.default_rng(5).beta(4, 2, size=200)
    bound = betting_lower(x, 0.05)
    assert log_e_process(x, bound, 0.05, "betting").max() >= np.log(20)
    assert log_e_process(x, bound + 0.01, 0.05, "betting").max() < np.log(20)


@pytest.mark.parametrize("test", ["betting", "empirical_bernstein", "hoeffding"])
def test_e_process_is_valid_under_the_null(test):
    # Ville: the wealth ever reaches 1/alpha in at most alpha of the streams whose mean is the null.
    rng = np.random.default_rng(11)
    alpha = 0.2
    hits = sum(log_e_process(rng.binomial(1, 0.4, size=300).astype(float), 0.4, alpha, test).max() >= np.log(1 / alpha)
               for _ in range(300))
    assert hits / 300 <= alpha


def test_difference_e_process_maps_the_range_and_threshold():
    better, worse = np.full(50, 0.7), np.full(50, 0.2)
    wealth = difference_log_e_process(better, worse, 0.0, 1.0, 0.0, 0.05, "betting")
    assert wealth[-1] > np.log(1e4) and np.all(np.diff(wealth) >= 0)
    # the same data in a range twice as wide, with the threshold doubled, is the same bet
    assert difference_log_e_process(better * 2, worse * 2, 0.0, 2.0, 0.2, 0.05, "betting") == pytest.approx(
        difference_log_e_process(better, worse, 0.0, 1.0, 0.1, 0.05, "betting"))
    # a difference at the threshold earns nothing
    assert difference_log_e_process(better, worse, 0.0, 1.0, 0.5, 0.05, "betting").max() <= 1e-12
