"""The asymptotic confidence sequence (AsympCS) of Waudby-Smith, Arbour, Sinha, Kennedy and
Ramdas, "Time-uniform central limit theory and asymptotic confidence sequences" (Annals of
Statistics 2024; arXiv:2103.06476), Theorem 2.2, for the mean of observations ``x_1, x_2, ...``:

    mean_t +- sigma_t * sqrt(2 (t rho^2 + 1) / (t^2 rho^2) * log(sqrt(t rho^2 + 1) / alpha))

with ``mean_t`` and ``sigma_t^2 = (1/t) sum (x_i - mean_t)^2`` the running sample mean and
variance, and ``rho > 0`` a tuning constant. It is Robbins' two-sided Gaussian-mixture boundary
(mixing ``exp(lambda S - lambda^2 t / 2)`` over ``lambda ~ N(0, rho^2)``) applied to the
standardised sum ``S_t = t (mean_t - mu) / sigma_t`` as if it were a Gaussian random walk; the
strong approximation of the sum by a Brownian motion makes that right in the limit. The width is
smallest at ``t = t*`` for ``rho^2 = (2 log(1/alpha) + log(1 + 2 log(1/alpha))) / t*`` (the
paper's choice of rho; also ``best_rho`` of the ``confseq`` package's two-sided normal mixture).

The guarantee is weaker than the betting sequences' of :mod:`harness.racing.confseq`: no
finite-sample promise, only that the probability that the mean ever leaves the sequence after a
burn-in time ``m`` tends to at most ``alpha`` as ``m`` grows (the paper's definition of an
AsympCS). In exchange it uses the observed variance at the Gaussian constant, so at large ``t`` it
is narrower than any sequence valid for every bounded distribution.

A race reads its lower end (one side of the two-sided sequence: still at most ``alpha``), from
the burn-in ``race.min_questions`` on.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

NAME = "asymptotic"


@dataclass(frozen=True)
class Asymptotic:
    """The asymptotic sequence, tuned.

    Args:
        tightest_at: ``t*``, the number of observations at which the bound is narrowest
            (``race.tightest_at``).
        burn_in: the first ``t`` at which the sequence is read (``race.min_questions``): before
            it, the running variance is too rough for the limit to say anything.
    """

    tightest_at: float
    burn_in: int = 1
    name: str = NAME

    def __post_init__(self) -> None:
        if not self.tightest_at > 0:
            raise ValueError(f"race.tightest_at must be > 0, got {self.tightest_at!r}")
        if self.burn_in < 1:
            raise ValueError(f"the burn-in must be >= 1, got {self.burn_in!r}")


def mixture_rho2(tightest_at: float, alpha: float) -> float:
    """``rho^2`` that makes the boundary narrowest at ``t = tightest_at`` (for level ``alpha``)."""
    log_term = 2 * math.log(1 / alpha)
    return (log_term + math.log1p(log_term)) / tightest_at


def radius(t, sigma, alpha: float, rho2: float):
    """The half-width ``sigma_t sqrt(2 (t rho^2 + 1) / (t^2 rho^2) log(sqrt(t rho^2 + 1) / alpha))``.

    Example:
        >>> round(float(radius(100, 0.5, 0.05, mixture_rho2(100, 0.05))), 4)
        0.1518
    """
    t = np.asarray(t, dtype=float)
    scale = t * rho2 + 1
    return sigma * np.sqrt(2 * scale / (t ** 2 * rho2) * (0.5 * np.log(scale) + math.log(1 / alpha)))


def running_moments(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``mean_t`` and ``sigma_t`` (divided by ``t``) of every prefix of ``x``.

    Sums are taken about ``x_1`` so that a constant prefix has a variance of exactly 0."""
    t = np.arange(1, len(x) + 1)
    shifted = x - (x[0] if len(x) else 0.0)
    mean_shift = np.cumsum(shifted) / t
    variance = np.maximum(np.cumsum(shifted ** 2) / t - mean_shift ** 2, 0.0)
    return mean_shift + (x[0] if len(x) else 0.0), np.sqrt(variance)


def asymptotic_lower(x: np.ndarray, alpha: float, tuning: Asymptotic) -> np.ndarray:
    """The lower ends ``L_1..L_n`` of the two-sided sequence at level ``alpha``, one per prefix.

    Example:
        >>> bounds = asymptotic_lower(np.array([1.0, 0.0] * 100), 0.05, Asymptotic(100))
        >>> round(float(bounds[-1]), 4)
        0.3918
    """
    mean, sigma = running_moments(x)
    rho2 = mixture_rho2(tuning.tightest_at, alpha)
    return mean - radius(np.arange(1, len(x) + 1), sigma, alpha, rho2)


def asymptotic_log_e(x: np.ndarray, null_mean: float, alpha: float, tuning: Asymptotic) -> np.ndarray:
    """The log of the mixture's evidence, after each observation, that the mean exceeds ``null_mean``.

    The two-sided mixture ``M_t(m) = exp(rho^2 S_t^2 / (2 (t rho^2 + 1))) / sqrt(t rho^2 + 1)``
    reaches ``1 / alpha`` exactly where ``m`` leaves the sequence; read for the one-sided null "the
    mean is at most ``m``" it is its smallest value over that null: ``M_t(m)`` when
    ``mean_t > m``, else ``M_t(mean_t) = 1 / sqrt(t rho^2 + 1)``. So it reaches ``1 / alpha``
    exactly where :func:`asymptotic_lower` reaches ``m``. Before ``tuning.burn_in``: -inf (not read).
    """
    mean, sigma = running_moments(x)
    t = np.arange(1, len(x) + 1)
    rho2 = mixture_rho2(tuning.tightest_at, alpha)
    gap = np.maximum(mean - null_mean, 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        standardised = np.where(gap > 0, t * gap / sigma, 0.0)  # a gap with no variance: inf
    log_e = rho2 * standardised ** 2 / (2 * (t * rho2 + 1)) - 0.5 * np.log(t * rho2 + 1)
    return np.where(t >= tuning.burn_in, log_e, -math.inf)
