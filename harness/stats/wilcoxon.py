"""Wilcoxon signed-rank test on per-question differences."""

from __future__ import annotations

from scipy import stats

from harness.stats.paired import PairedSample
from harness.stats.result import TestResult, untestable_reason


def wilcoxon_signed_rank(sample: PairedSample) -> TestResult:
    """Two-sided Wilcoxon signed-rank test of the differences ``challenger - champion``.

    ``scipy.stats.wilcoxon`` with ``zero_method="wilcox"``: questions with a zero difference are
    dropped before ranking (ties in ``|d|`` get average ranks); ``method="auto"`` (exact null
    distribution for small samples without ties, normal approximation otherwise). The statistic
    is scipy's two-sided one, ``min(R+, R-)``. Not testable with fewer than 2 pairs or all-zero
    differences.

    Example:
        >>> from harness.stats.paired import align
        >>> s = align({"a": 0.1, "b": 0.4, "c": 0.3}, {"a": 0.3, "b": 0.5, "c": 0.6})
        >>> r = wilcoxon_signed_rank(s)
        >>> r.statistic, r.p_value
        (0.0, 0.25)
    """
    reason = untestable_reason(sample)
    if reason:
        return TestResult.untestable(reason)
    result = stats.wilcoxon(sample.differences, zero_method="wilcox", alternative="two-sided")
    return TestResult.from_scipy(result.statistic, result.pvalue)
