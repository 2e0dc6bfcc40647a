"""The result of comparing a challenger with the champion on one metric."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass

from harness.stats.result import TestResult
from harness.stats.spec import MetricSpec
from harness.stats.verdict import MetricEvidence


@dataclass(frozen=True)
class MetricComparison:
    """Challenger vs champion on one metric. Differences are ``challenger - champion``.

    ``p_value``/``reason`` are those of the selected ``test``; ``p_corrected`` is filled in by
    :func:`harness.stats.sweep.compare_sweep` once the whole family of comparisons is known.
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
    ci_low: float | None
    ci_high: float | None
    cohens_d: float | None
    achieved_power: float | None
    n_required_z: int | None
    n_required_t: int | None
    minimum_detectable_d: float | None
    p_corrected: float | None = None

    @property
    def missing(self) -> int:
        return len(self.missing_ids)

    def with_corrected(self, p_corrected: float | None) -> MetricComparison:
        return dataclasses.replace(self, p_corrected=p_corrected)

    def evidence(self) -> MetricEvidence:
        """The verdict's view of this metric, with the corrected p-value."""
        return MetricEvidence(
            self.spec, self.mean_difference, self.p_corrected, self.reason, self.cohens_d, self.n, self.n_required_z
        )

    def to_row(self) -> dict:
        """Flat dict for a table (one column per number)."""
        tests = {"t": self.t_test, "wilcoxon": self.wilcoxon, "permutation": self.permutation}
        row = {"metric": self.spec.name, "role": self.spec.role, "direction": self.spec.direction}
        row |= {f: getattr(self, f) for f in ("n", "missing", "mean_champion", "mean_challenger", "mean_difference")}
        row |= {"ci_low": self.ci_low, "ci_high": self.ci_high, "cohens_d": self.cohens_d, "test": self.test}
        row |= {"p_value": self.p_value, "p_corrected": self.p_corrected, "reason": self.reason}
        for name, result in tests.items():
            row[f"{name}_statistic"] = result.statistic if result else None
            row[f"{name}_p_value"] = result.p_value if result else None
        row |= {f: getattr(self, f) for f in ("achieved_power", "n_required_z", "n_required_t", "minimum_detectable_d")}
        return row


def to_rows(comparisons: Sequence[MetricComparison]) -> list[dict]:
    return [c.to_row() for c in comparisons]
