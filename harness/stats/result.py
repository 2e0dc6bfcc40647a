"""The result every paired significance test returns, and the checks that make a test untestable."""

from __future__ import annotations

import math
from dataclasses import dataclass

from harness.stats.paired import PairedSample


@dataclass(frozen=True)
class TestResult:
    """Outcome of one significance test.

    Attributes:
        statistic: the test statistic, or None when not testable.
        p_value: two-sided p-value, or None when not testable (never an invented value).
        reason: None when the test ran, else why it could not ("not testable: ...").
    """

    __test__ = False  # not a pytest test class, despite the name

    statistic: float | None
    p_value: float | None
    reason: str | None = None

    @property
    def testable(self) -> bool:
        return self.reason is None

    @classmethod
    def untestable(cls, reason: str) -> TestResult:
        return cls(None, None, reason)

    @classmethod
    def from_scipy(cls, statistic: float, p_value: float) -> TestResult:
        """Wrap scipy's numbers, refusing non-finite p-values rather than passing NaN on."""
        statistic, p_value = float(statistic), float(p_value)
        if not math.isfinite(p_value):
            return cls.untestable(f"not testable: the test returned p={p_value}")
        return cls(statistic, p_value)


def untestable_reason(sample: PairedSample, needs_variance: bool = False) -> str | None:
    """Why ``sample`` cannot be tested, or None when it can.

    Args:
        sample: the paired values.
        needs_variance: the statistic divides by the spread of the differences (t-test).

    Example:
        >>> import numpy as np
        >>> one = PairedSample(("q1",), np.array([0.5]), np.array([0.75]))
        >>> untestable_reason(one)
        'not testable: fewer than 2 paired questions (n=1)'
    """
    if sample.n < 2:
        return f"not testable: fewer than 2 paired questions (n={sample.n})"
    if sample.all_zero():
        return "not testable: all differences zero"
    if needs_variance and sample.constant():
        return (
            "not testable: the differences have zero variance "
            "(every question differs by the same amount), so t is undefined"
        )
    return None
