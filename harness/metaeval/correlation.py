"""Correlations (scipy) with a seeded percentile-bootstrap confidence interval.

The interval comes from :func:`scipy.stats.bootstrap` (paired resampling of the two lists). A
resample on which a statistic is undefined (one side constant, likely on few points) is left out
of the percentiles instead of turning the whole interval into NaN, as scipy's own percentile
interval would; without such resamples the interval is exactly scipy's.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

STATISTICS = ("pearson", "spearman", "kendall")


@dataclass(frozen=True)
class Estimate:
    """A statistic with its bootstrap interval; NaN where undefined (a constant input)."""

    value: float
    low: float
    high: float

    def scaled(self, factor: float) -> Estimate:
        return Estimate(self.value * factor, self.low * factor, self.high * factor)


def correlation(statistic: str, x: Sequence[float], y: Sequence[float]) -> float:
    """Pearson's r, Spearman's rho or Kendall's tau-b (scipy); NaN for a constant input.

    >>> round(correlation("spearman", [1, 2, 3, 4], [10, 20, 30, 25]), 6)
    0.8
    >>> correlation("pearson", [1, 1, 1], [1, 2, 3])
    nan
    """
    from scipy.stats import kendalltau, pearsonr, spearmanr

    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if np.ptp(x) == 0 or np.ptp(y) == 0:
        return math.nan
    function = {"pearson": pearsonr, "spearman": spearmanr, "kendall": kendalltau}[statistic]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return float(function(x, y).statistic)


def _batched(statistic: str):
    """The statistic over the last axis of stacked resamples, as scipy's ``vectorized`` expects."""

    def compute(x: np.ndarray, y: np.ndarray, axis: int = -1) -> np.ndarray:
        x, y = np.moveaxis(x, axis, -1), np.moveaxis(y, axis, -1)
        flat_x, flat_y = x.reshape(-1, x.shape[-1]), y.reshape(-1, y.shape[-1])
        values = [correlation(statistic, a, b) for a, b in zip(flat_x, flat_y)]
        return np.asarray(values).reshape(x.shape[:-1])

    return compute


def bootstrap_estimate(statistic: str, x: Sequence[float], y: Sequence[float], resamples: int,
                       confidence: float, seed: int) -> Estimate:
    """The statistic on ``(x, y)`` with its percentile-bootstrap interval.

    Args:
        statistic: ``pearson``, ``spearman`` or ``kendall``.
        x, y: paired values, resampled together.
        resamples: bootstrap resamples.
        confidence: the interval's level, e.g. 0.95.
        seed: seeds the resampling (same seed, same interval).
    """
    from scipy.stats import bootstrap

    value = correlation(statistic, x, y)
    if math.isnan(value):
        return Estimate(math.nan, math.nan, math.nan)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # scipy warns about NaN in the distribution; handled below
        result = bootstrap((np.asarray(x, float), np.asarray(y, float)), _batched(statistic), paired=True,
                           vectorized=True, n_resamples=resamples, confidence_level=confidence,
                           method="percentile", rng=np.random.default_rng(seed))
    distribution = result.bootstrap_distribution
    if np.isnan(distribution).all():
        return Estimate(value, math.nan, math.nan)
    alpha = (1 - confidence) / 2
    low, high = np.nanpercentile(distribution, [100 * alpha, 100 * (1 - alpha)])
    return Estimate(value, float(low), float(high))


@dataclass(frozen=True)
class ColumnAgreement:
    """How one per-question column agrees with one labelled dimension.

    Attributes:
        dimension: the labels' dimension.
        column: the run's per-question column (for pairwise labels: its difference B - A).
        n: questions (absolute) or label rows (pairwise) the correlations are computed on.
        estimates: statistic name -> :class:`Estimate` (pairwise figures are x 100).
        extras: further figures by name (pairwise: ``sign_agreement``, ``n_sign``, ``imputed``).
    """

    dimension: str
    column: str
    n: int
    estimates: dict[str, Estimate]
    extras: dict[str, float]
