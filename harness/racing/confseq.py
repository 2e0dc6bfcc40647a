"""Time-uniform lower confidence bounds for the mean of bounded observations.

From Waudby-Smith and Ramdas, "Estimating means of bounded random variables by betting" (JRSS-B
2023; arXiv:2010.09686), one-sided: the predictable plug-in confidence sequences of Theorem 2
(empirical Bernstein, PrPl-EB) and Proposition 1 (Hoeffding, PrPl-H), in closed form, and the
betting confidence sequence (section 4), on a grid of candidate means. With probability at least
``1 - alpha`` the bound at *every* ``t`` lies below the true mean at once, so it may be read
after every round of a race without inflating the error rate.

Written out here because the reference packages cannot be installed beside the harness
(``confseq`` builds C++ from source, ``expectation`` needs Python >= 3.12); tests check the
closed form step by step and its coverage by simulation.

``race.test=asymptotic`` (:mod:`harness.racing.asymptotic`) is read through the same functions:
where they take a ``test`` name they also take its tuned :class:`~harness.racing.asymptotic.Asymptotic`.
"""

from __future__ import annotations

import math

import numpy as np

from harness.racing.asymptotic import NAME as ASYMPTOTIC
from harness.racing.asymptotic import Asymptotic, asymptotic_lower, asymptotic_log_e

# lambda_t is truncated below 1 so that -log(1 - lambda) stays finite; the paper uses 1/2 or 3/4.
TRUNCATION = 0.5


def _check(values, alpha: float) -> np.ndarray:
    x = np.asarray(values, dtype=float)
    if x.ndim != 1:
        raise ValueError(f"values must be one-dimensional, got shape {x.shape}")
    if np.any(~np.isfinite(x)) or np.any((x < 0) | (x > 1)):
        raise ValueError("values must lie in [0, 1]")
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be in (0, 1), got {alpha!r}")
    return x


def _eb_bets(x: np.ndarray, alpha: float) -> tuple[np.ndarray, np.ndarray]:
    """The predictable bets ``lambda_t`` of Theorem 2 (tuned for level ``alpha``) and their
    penalties ``v_t psi_E(lambda_t)``."""
    t = np.arange(1, len(x) + 1)
    # mu_hat_t and sigma2_hat_t use observations up to t; lambda_t and v_t use those up to t - 1.
    mu_hat = (0.5 + np.cumsum(x)) / (t + 1)
    sigma2_hat = (0.25 + np.cumsum((x - mu_hat) ** 2)) / (t + 1)
    sigma2_prev = np.concatenate([[0.25], sigma2_hat[:-1]])
    mu_prev = np.concatenate([[0.5], mu_hat[:-1]])
    lam = np.minimum(np.sqrt(2 * math.log(1 / alpha) / (sigma2_prev * t * np.log1p(t))), TRUNCATION)
    v = 4 * (x - mu_prev) ** 2
    return lam, v * (-np.log1p(-lam) - lam) / 4


def _hoeffding_bets(x: np.ndarray, alpha: float) -> tuple[np.ndarray, np.ndarray]:
    """The predictable bets of Proposition 1 (tuned for level ``alpha``) and their penalties ``lambda_t^2 / 8``."""
    t = np.arange(1, len(x) + 1)
    lam = np.minimum(np.sqrt(8 * math.log(1 / alpha) / (t * np.log1p(t))), 1.0)
    return lam, lam ** 2 / 8


def _closed_form_lower(x: np.ndarray, alpha: float, bets) -> np.ndarray:
    """``L_t``: the smallest ``m`` whose log wealth ``sum lambda (x - m) - sum penalty`` stays below
    ``log(1 / alpha)``, in closed form."""
    lam, penalty = bets(x, alpha)
    lam_sum = np.cumsum(lam)
    return np.cumsum(lam * x) / lam_sum - (math.log(1 / alpha) + np.cumsum(penalty)) / lam_sum


def empirical_bernstein_lower(values, alpha: float) -> np.ndarray:
    """Lower bounds ``L_1..L_n`` (one per prefix) of the mean of ``values`` in [0, 1].

    Example:
        >>> bounds = empirical_bernstein_lower([1.0] * 200, alpha=0.05)
        >>> round(float(bounds[9]), 3), round(float(bounds[-1]), 3)
        (0.386, 0.969)
    """
    return _closed_form_lower(_check(values, alpha), alpha, _eb_bets)


def hoeffding_lower(values, alpha: float) -> np.ndarray:
    """Lower bounds of the mean of ``values`` in [0, 1] from the predictable plug-in Hoeffding
    sequence (no variance estimate: wider than :func:`empirical_bernstein_lower` when the
    observations vary little, never invalid).

    Example:
        >>> round(float(hoeffding_lower([1.0] * 200, alpha=0.05)[-1]), 3)
        0.894
    """
    return _closed_form_lower(_check(values, alpha), alpha, _hoeffding_bets)


# Candidate means m of the betting bound: a grid of this many steps over [0, 1].
BETTING_GRID = 2000


def betting_lower(values, alpha: float) -> float:
    """The lower bound, after all ``values`` in [0, 1], of the one-sided betting confidence
    sequence (Waudby-Smith and Ramdas 2023, section 4, with the aGRAPA bets of section B.3).

    For each candidate mean ``m`` a gambler bets ``lambda_t(m) >= 0`` (predictable: from the
    observations before ``t``, truncated to ``TRUNCATION / m``) that the mean exceeds ``m``; the
    wealth ``prod(1 + lambda_t(m) (x_t - m))`` is a nonnegative supermartingale when the mean is
    at most ``m``, so by Ville's inequality it ever reaches ``1 / alpha`` with probability at most
    ``alpha``. The bound is the largest grid point below which every ``m`` was rejected at some
    time: the candidate just above a rejected one may be the true mean, so the grid rounds down.
    Adapts to the observed variance and effect, which makes it tighter than
    :func:`empirical_bernstein_lower` at the sample sizes a race sees.

    Example:
        >>> round(betting_lower([1.0] * 200, alpha=0.05), 3)
        0.968
    """
    x = _check(values, alpha)
    m = np.arange(1, BETTING_GRID) / BETTING_GRID
    rejected = _betting_log_wealth(x, m).max(axis=0) >= math.log(1 / alpha)
    below = np.argmin(rejected) if not rejected.all() else len(m)  # first candidate not rejected
    return 0.0 if below == 0 else float(m[below - 1])


def _betting_log_wealth(x: np.ndarray, m: np.ndarray) -> np.ndarray:
    """``log prod_{s <= t} (1 + lambda_s(m) (x_s - m))`` for every ``t`` (rows) and candidate ``m``
    (columns), with the aGRAPA bets truncated to ``TRUNCATION / m``."""
    t = np.arange(1, len(x) + 1)
    mu_hat = (0.5 + np.cumsum(x)) / (t + 1)
    sigma2_hat = (0.25 + np.cumsum((x - mu_hat) ** 2)) / (t + 1)
    mu_prev = np.concatenate([[0.5], mu_hat[:-1]])[:, None]
    sigma2_prev = np.concatenate([[0.25], sigma2_hat[:-1]])[:, None]
    gap = mu_prev - m[None, :]
    lam = np.clip(gap / (sigma2_prev + gap ** 2), 0.0, TRUNCATION / m[None, :])
    return np.cumsum(np.log1p(lam * (x[:, None] - m[None, :])), axis=0)


SEQUENCES = {"empirical_bernstein": empirical_bernstein_lower, "hoeffding": hoeffding_lower}
TESTS = (*SEQUENCES, "betting", ASYMPTOTIC)
_BETS = {"empirical_bernstein": _eb_bets, "hoeffding": _hoeffding_bets}


def _test_name(test: str | Asymptotic) -> str:
    """The name of ``test``; refuses an unknown one, and the asymptotic sequence untuned."""
    if isinstance(test, Asymptotic):
        return test.name
    if test not in TESTS:
        raise ValueError(f"race.test must be one of {sorted(TESTS)}, got {test!r}")
    if test == ASYMPTOTIC:
        raise ValueError("race.test=asymptotic needs its tuning (race.tightest_at): pass an Asymptotic")
    return test


def running_lower_bound(values, alpha: float, test: str | Asymptotic) -> float:
    """The tightest lower bound over all prefixes: the intersection of a confidence sequence's
    bounds is itself valid (it holds at every time at once), so a race keeps the running maximum
    (the betting bound already takes each candidate's largest wealth so far; the asymptotic one
    is read from its burn-in on, -inf before)."""
    name = _test_name(test)
    if name == "betting":
        return betting_lower(values, alpha)
    if name == ASYMPTOTIC:
        return float(np.max(asymptotic_lower(_check(values, alpha), alpha, test)[test.burn_in - 1:],
                            initial=-math.inf))
    return float(np.max(SEQUENCES[name](values, alpha)))


def difference_lower_bound(better, worse, low: float, high: float, alpha: float, test: str | Asymptotic) -> float:
    """A time-uniform lower bound of ``mean(better - worse)`` for paired values in [low, high]:
    the differences are mapped onto [0, 1] and the bound mapped back."""
    width = _width(low, high)
    a, b = _in_range(better, worse, low, high)
    scaled = (a - b + width) / (2 * width)
    return 2 * width * running_lower_bound(np.clip(scaled, 0.0, 1.0), alpha, test) - width


def _width(low: float, high: float) -> float:
    width = high - low
    if not width > 0:
        raise ValueError(f"race.bounds must be [low, high] with low < high, got [{low}, {high}]")
    return width


def _in_range(better, worse, low: float, high: float) -> tuple[np.ndarray, np.ndarray]:
    a, b = np.asarray(better, dtype=float), np.asarray(worse, dtype=float)
    check_in_bounds("better", a, low, high)
    check_in_bounds("worse", b, low, high)
    return a, b


def check_in_bounds(name: str, values: np.ndarray, low: float, high: float, missing_ok: bool = False) -> None:
    """Raises naming ``name`` when a value lies outside [low, high] or is not finite (NaN allowed
    with ``missing_ok``: no value)."""
    bad = (values < low) | (values > high) | (np.isinf(values) if missing_ok else ~np.isfinite(values))
    if bad.any():
        raise ValueError(f"{name}: value {float(values[bad][0])!r} lies outside race.bounds [{low}, {high}]")


def log_e_process(values, null_mean: float, alpha: float, test: str | Asymptotic) -> np.ndarray:
    """``log E_1..log E_n``: the log wealth, after each observation, of the gambler behind
    ``test``'s bound who bets that the mean of ``values`` in [0, 1] exceeds ``null_mean``.

    ``E`` is an e-process for "the mean is at most ``null_mean``": a nonnegative supermartingale
    from 1, so by Ville's inequality it ever reaches ``c`` with probability at most ``1 / c``.
    The bound at level ``alpha`` lies above ``null_mean`` exactly when ``E`` has reached
    ``1 / alpha`` (``alpha`` only tunes the empirical-Bernstein and Hoeffding bets; for the
    betting test the bound rounds down to its grid). An average of such processes, one per
    rival, is an e-process too, which :mod:`harness.racing.elimination` uses to pool evidence.
    The asymptotic sequence's mixture (:func:`harness.racing.asymptotic.asymptotic_log_e`) is one
    only in the limit, and is not a wealth to pool step by step.

    Example:
        >>> round(float(log_e_process([1.0] * 10, 0.5, alpha=0.05, test="betting")[-1]), 3)
        3.649
    """
    name = _test_name(test)
    x = _check(values, alpha)
    if not 0 < null_mean < 1:
        raise ValueError(f"null_mean must be in (0, 1), got {null_mean!r}")
    if name == "betting":
        return _betting_log_wealth(x, np.array([float(null_mean)]))[:, 0]
    if name == ASYMPTOTIC:
        return asymptotic_log_e(x, null_mean, alpha, test)
    lam, penalty = _BETS[name](x, alpha)
    return np.cumsum(lam * (x - null_mean)) - np.cumsum(penalty)


def difference_log_e_process(better, worse, low: float, high: float, threshold: float, alpha: float,
                             test: str | Asymptotic) -> np.ndarray:
    """:func:`log_e_process` of the evidence that ``mean(better - worse)`` exceeds ``threshold``,
    for paired values in [low, high] (mapped onto [0, 1] as in :func:`difference_lower_bound`)."""
    width = _width(low, high)
    a, b = _in_range(better, worse, low, high)
    scaled = np.clip((a - b + width) / (2 * width), 0.0, 1.0)
    return log_e_process(scaled, (threshold + width) / (2 * width), alpha, test)
