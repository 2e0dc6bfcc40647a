"""Paired permutation (sign-flip) test on the mean per-question difference."""

from __future__ import annotations

import numpy as np
from scipy import stats

from harness.stats._checks import check_count
from harness.stats.paired import PairedSample
from harness.stats.result import TestResult, untestable_reason


def _mean_difference(challenger: np.ndarray, champion: np.ndarray, axis: int) -> np.ndarray:
    return np.mean(challenger - champion, axis=axis)


def paired_permutation_test(sample: PairedSample, resamples: int, seed: int) -> TestResult:
    """Two-sided paired permutation test of the mean difference ``challenger - champion``.

    ``scipy.stats.permutation_test`` with ``permutation_type="samples"``: under H0 the two
    values of a question are exchangeable, so each difference keeps or flips its sign. When
    ``2**n <= resamples`` scipy enumerates every sign pattern (exact test); otherwise it draws
    ``resamples`` random ones from ``numpy.random.default_rng(seed)``.

    Args:
        sample: the paired values.
        resamples: number of random permutations.
        seed: seed of the random generator.

    Example:
        >>> from harness.stats.paired import align
        >>> s = align({"a": 0.1, "b": 0.4, "c": 0.3}, {"a": 0.3, "b": 0.5, "c": 0.6})
        >>> r = paired_permutation_test(s, resamples=1000, seed=0)  # 2**3 <= 1000: exact
        >>> round(r.statistic, 4), r.p_value
        (0.2, 0.25)
    """
    check_count(resamples, "resamples", 1)
    reason = untestable_reason(sample)
    if reason:
        return TestResult.untestable(reason)
    result = stats.permutation_test(
        (sample.challenger, sample.champion),
        _mean_difference,
        permutation_type="samples",
        vectorized=True,
        n_resamples=resamples,
        alternative="two-sided",
        rng=np.random.default_rng(seed),
    )
    return TestResult.from_scipy(result.statistic, result.pvalue)
