"""Paired t-test on per-question differences (seed 003, section 7.1)."""

from __future__ import annotations

from scipy import stats

from harness.stats.paired import PairedSample
from harness.stats.result import TestResult, untestable_reason


def paired_t_test(sample: PairedSample) -> TestResult:
    """Two-sided paired t-test of H0: mean(challenger - champion) = 0, df = n - 1.

    Uses ``scipy.stats.ttest_rel(challenger, champion)``, so a positive statistic means the
    challenger scored higher. Not testable with fewer than 2 pairs, all-zero differences, or
    differences of zero variance (t = mean / 0).

    Example:
        >>> from harness.stats.paired import align
        >>> s = align({"a": 0.1, "b": 0.4, "c": 0.3}, {"a": 0.3, "b": 0.5, "c": 0.6})
        >>> r = paired_t_test(s)
        >>> round(r.statistic, 4), round(r.p_value, 4)
        (3.4641, 0.0742)
    """
    reason = untestable_reason(sample, needs_variance=True)
    if reason:
        return TestResult.untestable(reason)
    result = stats.ttest_rel(sample.challenger, sample.champion, alternative="two-sided")
    return TestResult.from_scipy(result.statistic, result.pvalue)
