import numpy as np
import pytest
from scipy import stats

from harness.stats.effect import bootstrap_ci, cohens_d
from harness.stats.paired import align


def test_cohens_d_is_mean_over_bessel_sd(random_pair):
    sample = align(*random_pair)
    d = sample.differences
    effect = cohens_d(d, tolerance=sample.tolerance)
    if sample.n < 2 or sample.constant():
        assert effect is None
    else:
        assert effect == pytest.approx(np.mean(d) / np.std(d, ddof=1), rel=1e-12)


def test_cohens_d_hand_worked():
    # d = [0.1, 0.2, 0.3, 0.6]: mean 0.3, sd (ddof=1) = sqrt(0.14/3)
    assert cohens_d(np.array([0.1, 0.2, 0.3, 0.6])) == pytest.approx(0.3 / np.sqrt(0.14 / 3))


@pytest.mark.parametrize("d", [[], [0.4], [0.2, 0.2, 0.2], [0.0, 0.0]])
def test_cohens_d_undefined(d):
    assert cohens_d(np.array(d)) is None


def _loop_bootstrap(d, resamples, alpha, seed):
    """The seed's algorithm step by step: B samples of n with replacement, their means, percentiles."""
    rng = np.random.default_rng(seed)
    means = [np.mean(rng.choice(d, size=len(d), replace=True)) for _ in range(resamples)]
    return tuple(np.percentile(sorted(means), [100 * alpha / 2, 100 * (1 - alpha / 2)]))


@pytest.mark.parametrize("alpha", [0.05, 0.1])
def test_bootstrap_equals_step_by_step_algorithm(random_pair, alpha):
    d = align(*random_pair).differences
    assert bootstrap_ci(d, 1000, alpha, seed=42) == pytest.approx(_loop_bootstrap(d, 1000, alpha, 42), abs=1e-12)


def test_bootstrap_equals_scipy_percentile_bootstrap(random_pair):
    d = align(*random_pair).differences
    if np.ptp(d) == 0:  # scipy refuses a degenerate bootstrap distribution
        assert bootstrap_ci(d, 2000, 0.05, seed=9) == pytest.approx((d[0], d[0]))
        return
    expected = stats.bootstrap(
        (d,), np.mean, n_resamples=2000, confidence_level=0.95, method="percentile",
        vectorized=True, rng=np.random.default_rng(9),
    ).confidence_interval
    assert bootstrap_ci(d, 2000, 0.05, seed=9) == pytest.approx((expected.low, expected.high), abs=1e-12)


def test_bootstrap_is_seeded():
    d = np.random.default_rng(0).normal(size=30)
    assert bootstrap_ci(d, 500, 0.05, 1) == bootstrap_ci(d, 500, 0.05, 1)
    assert bootstrap_ci(d, 500, 0.05, 1) != bootstrap_ci(d, 500, 0.05, 2)


def test_bootstrap_coverage_is_near_nominal():
    rng = np.random.default_rng(123)
    trials, covered = 300, 0
    for seed in range(trials):
        d = rng.normal(0.05, 0.2, size=40)
        low, high = bootstrap_ci(d, 500, 0.05, seed)
        covered += low <= 0.05 <= high
    assert 0.88 <= covered / trials <= 0.99


def test_bootstrap_single_value_and_constant():
    assert bootstrap_ci(np.array([0.3]), 100, 0.05, 0) == (0.3, 0.3)
    assert bootstrap_ci(np.array([0.1, 0.1, 0.1]), 100, 0.05, 0) == pytest.approx((0.1, 0.1))


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [({"d": np.array([])}, "d"), ({"resamples": 0}, "resamples"), ({"alpha": 1.0}, "alpha"), ({"alpha": 0}, "alpha")],
)
def test_bootstrap_arguments_are_validated(kwargs, name):
    arguments = {"d": np.array([0.1, 0.2]), "resamples": 10, "alpha": 0.05, "seed": 0} | kwargs
    with pytest.raises(ValueError, match=name):
        bootstrap_ci(**arguments)
