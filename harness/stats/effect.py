"""Effect size and a bootstrap confidence interval of the mean difference (seed 003, 7.2-7.3)."""

from __future__ import annotations

import numpy as np

from harness.stats._checks import check_count, check_probability


def cohens_d(d: np.ndarray, tolerance: float = 0.0) -> float | None:
    """Cohen's d of paired differences: ``mean(d) / std(d, ddof=1)`` (Bessel's correction).

    Args:
        d: per-question differences.
        tolerance: a spread ``max(d) - min(d)`` at or below this counts as zero (rounding of
            equal scores; :attr:`PairedSample.tolerance` gives it).

    Returns:
        None when undefined: fewer than 2 differences, or zero spread (the paired t-test then
        reports the matching reason).

    Example:
        >>> round(cohens_d(np.array([0.2, 0.1, 0.3])), 12)
        2.0
        >>> cohens_d(np.array([0.1, 0.1])) is None
        True
    """
    d = np.asarray(d, dtype=float)
    if d.size < 2:
        return None
    sd = float(np.std(d, ddof=1))
    if sd == 0.0 or float(np.ptp(d)) <= tolerance:
        return None
    return float(np.mean(d)) / sd


def bootstrap_ci(d: np.ndarray, resamples: int, alpha: float, seed: int) -> tuple[float, float]:
    """Percentile bootstrap confidence interval of ``mean(d)``.

    Draws ``resamples`` samples of the ``n`` differences with replacement (indices from
    ``numpy.random.default_rng(seed).integers(0, n, (resamples, n))``), takes each sample's
    mean, and returns the ``100*alpha/2`` and ``100*(1-alpha/2)`` percentiles of those means
    (``numpy.percentile``, linear interpolation). Equal to
    ``scipy.stats.bootstrap(..., method="percentile")`` with the same generator.

    Args:
        d: per-question differences (at least one).
        resamples: number of bootstrap samples (B).
        alpha: 1 - confidence level.
        seed: seed of the random generator.

    Example:
        >>> low, high = bootstrap_ci(np.array([0.2, 0.1, 0.3, 0.0]), resamples=1000, alpha=0.05, seed=0)
        >>> bool(low < 0.15 < high)
        True
    """
    d = np.asarray(d, dtype=float)
    if d.ndim != 1 or d.size == 0:
        raise ValueError(f"d must be a non-empty 1-d array of differences, got shape {d.shape}")
    check_count(resamples, "resamples", 1)
    alpha = check_probability(alpha, "alpha")
    rng = np.random.default_rng(seed)
    means = d[rng.integers(0, d.size, size=(resamples, d.size))].mean(axis=-1)
    low, high = np.percentile(means, [100 * alpha / 2, 100 * (1 - alpha / 2)])
    return float(low), float(high)
