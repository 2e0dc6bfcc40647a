"""The result of comparing a challenger with the champion on one metric."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from harness.stats.margin import MarginVerdict
from harness.stats.result import TestResult
from harness.stats.spec import MetricSpec


@dataclass(frozen=True)
class MetricComparison:
    """Challenger vs champion on one metric. Differences are ``challenger - champion``.

    ``p_value``/``reason`` are those of the selected ``test``; ``bootstrap_low``/``bootstrap_high``
    the percentile bootstrap interval at ``1 - alpha``, uncorrected. What the family decides is filled
    in by :func:`harness.stats.sweep.compare_sweep` once the whole family of comparisons is known
    (:mod:`harness.stats.family`): ``p_corrected``; ``ci_low``/``ci_high``, the interval of the mean
    difference at ``1 - ci_level`` (the level the family's error budget gives it), which is what every
    verdict reads and every table prints; and the five-way ``decision`` at the metric's margin
    (:mod:`harness.stats.margin`).
    """

    spec: MetricSpec
    n: int
    missing_ids: tuple
    mean_champion: float | None
    mean_challenger: float | None
    mean_difference: float | None
    test: str
    p_value: float | None
    reason: str | None
    t_test: TestResult
    wilcoxon: TestResult
    permutation: TestResult | None
    bootstrap_low: float | None
    bootstrap_high: float | None
    cohens_d: float | None
    achieved_power: float | None
    n_required_z: int | None
    n_required_t: int | None
    minimum_detectable_d: float | None
    p_corrected: float | None = None
    ci_low: float | None = None
    ci_high: float | None = None
    ci_level: float | None = None
    decision: MarginVerdict | None = None
    differences: np.ndarray | None = field(default=None, repr=False, compare=False)

    @property
    def missing(self) -> int:
        return len(self.missing_ids)

    @property
    def verdict(self) -> str | None:
        return self.decision.verdict if self.decision else None

    @property
    def sd(self) -> float | None:
        """Standard deviation of the per-question differences (None with fewer than 2)."""
        return float(np.std(self.differences, ddof=1)) if self.differences is not None and self.n >= 2 else None

    def to_row(self) -> dict:
        """Flat dict for a table (one column per number)."""
        tests = {"t": self.t_test, "wilcoxon": self.wilcoxon, "permutation": self.permutation}
        row = {"metric": self.spec.name, "role": self.spec.role, "direction": self.spec.direction}
        row |= {f: getattr(self, f) for f in ("n", "missing", "mean_champion", "mean_challenger", "mean_difference")}
        row |= {"verdict": self.verdict, "margin": self.spec.margin, "ci_low": self.ci_low, "ci_high": self.ci_high,
                "ci_level": self.ci_level, "questions_needed": self.decision.questions_needed if self.decision else None,
                "ci_low_uncorrected": self.bootstrap_low, "ci_high_uncorrected": self.bootstrap_high,
                "cohens_d": self.cohens_d, "test": self.test}
        row |= {"p_value": self.p_value, "p_corrected": self.p_corrected, "reason": self.reason}
        for name, result in tests.items():
            row[f"{name}_statistic"] = result.statistic if result else None
            row[f"{name}_p_value"] = result.p_value if result else None
        row |= {f: getattr(self, f) for f in ("achieved_power", "n_required_z", "n_required_t", "minimum_detectable_d")}
        return row


def to_rows(comparisons: Sequence[MetricComparison]) -> list[dict]:
    return [c.to_row() for c in comparisons]
