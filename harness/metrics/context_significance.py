"""Is seed 004's context delta more than chance? Paired tests on the questions scored both ways.

Both conditions answer the same questions, so the comparison is paired: McNemar's exact test on
the accuracy flags (statsmodels; only the discordant questions, accurate under one condition
only, carry information), the Wilcoxon signed-rank test on the 0-10 scores (scipy), and a seeded
percentile-bootstrap interval of the delta in percentage points (scipy). Where a test has
nothing to test (too few pairs, no discordant question, every score difference zero) it gives
its reason instead of a p-value.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np


@dataclass(frozen=True)
class SignificanceSettings:
    """``significance`` of ``conf/metrics/context_delta.yaml``.

    Attributes:
        resamples: bootstrap resamples of the delta's interval.
        confidence: the interval's level.
        seed: seeds the resampling.
        min_pairs: fewest paired questions any test is run on.
    """

    resamples: int
    confidence: float
    seed: int
    min_pairs: int

    def __post_init__(self) -> None:
        if self.resamples < 1:
            raise ValueError(f"significance.resamples must be >= 1, got {self.resamples}")
        if not 0 < self.confidence < 1:
            raise ValueError(f"significance.confidence must lie in (0, 1), got {self.confidence}")
        if self.min_pairs < 1:
            raise ValueError(f"significance.min_pairs must be >= 1, got {self.min_pairs}")


@dataclass
class Significance:
    """The tests' results; a ``None`` figure comes with its reason in ``reasons``."""

    n: int
    with_only: int = 0  # accurate with context only
    no_only: int = 0  # accurate without context only
    mcnemar_p: float | None = None
    wilcoxon_statistic: float | None = None
    wilcoxon_p: float | None = None
    delta_ci: tuple[float, float] | None = None
    reasons: dict[str, str] = field(default_factory=dict)

    def metrics(self) -> dict[str, float]:
        """The defined figures as ``context_delta/...`` metric names (without the prefix)."""
        out = {"discordant_with_context_only": float(self.with_only),
               "discordant_no_context_only": float(self.no_only)}
        figures = {"mcnemar_p": self.mcnemar_p, "wilcoxon_statistic": self.wilcoxon_statistic,
                   "wilcoxon_p": self.wilcoxon_p}
        out.update({k: float(v) for k, v in figures.items() if v is not None})
        if self.delta_ci is not None:
            out["delta_pp_ci_low"], out["delta_pp_ci_high"] = self.delta_ci
        return out

    def json(self, confidence: float, resamples: int) -> dict:
        """The block added to ``context_delta.json`` under ``significance``."""
        return {
            "n_pairs": self.n,
            "mcnemar_exact": {"p_value": self.mcnemar_p, "accurate_with_context_only": self.with_only,
                              "accurate_no_context_only": self.no_only, "reason": self.reasons.get("mcnemar")},
            "wilcoxon_signed_rank": {"statistic": self.wilcoxon_statistic, "p_value": self.wilcoxon_p,
                                     "reason": self.reasons.get("wilcoxon")},
            "delta_pp_bootstrap_ci": {"low": None if self.delta_ci is None else self.delta_ci[0],
                                      "high": None if self.delta_ci is None else self.delta_ci[1],
                                      "confidence": confidence, "resamples": resamples,
                                      "reason": self.reasons.get("bootstrap")},
        }


def paired_significance(scores_with: Sequence[float], scores_no: Sequence[float], accurate_with: Sequence[float],
                        accurate_no: Sequence[float], settings: SignificanceSettings) -> Significance:
    """McNemar, Wilcoxon and the bootstrap interval on paired per-question values (same order)."""
    n = len(scores_with)
    flags_with, flags_no = np.asarray(accurate_with, bool), np.asarray(accurate_no, bool)
    result = Significance(n=n, with_only=int(np.sum(flags_with & ~flags_no)),
                          no_only=int(np.sum(~flags_with & flags_no)))
    if n < settings.min_pairs:
        reason = f"too few pairs: {n} question(s) scored under both conditions, the tests need {settings.min_pairs}"
        result.reasons = {"mcnemar": reason, "wilcoxon": reason, "bootstrap": reason}
        return result
    _mcnemar(result, flags_with, flags_no)
    _wilcoxon(result, np.asarray(scores_with, float) - np.asarray(scores_no, float))
    _bootstrap(result, flags_with, flags_no, settings)
    return result


def _mcnemar(result: Significance, flags_with: np.ndarray, flags_no: np.ndarray) -> None:
    from statsmodels.stats.contingency_tables import mcnemar

    if result.with_only + result.no_only == 0:
        result.reasons["mcnemar"] = ("no discordant pairs: every question was accurate under both conditions "
                                     "or under neither, so the flags cannot tell the conditions apart")
        return
    table = [[int(np.sum(flags_with & flags_no)), result.with_only],
             [result.no_only, int(np.sum(~flags_with & ~flags_no))]]
    result.mcnemar_p = float(mcnemar(table, exact=True).pvalue)


def _wilcoxon(result: Significance, differences: np.ndarray) -> None:
    from scipy.stats import wilcoxon

    if not np.any(differences):
        result.reasons["wilcoxon"] = "all score differences are zero: both conditions scored every question alike"
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # scipy's note on zeros/ties switching to the normal approximation
        test = wilcoxon(differences)
    result.wilcoxon_statistic, result.wilcoxon_p = float(test.statistic), float(test.pvalue)


def _bootstrap(result: Significance, flags_with: np.ndarray, flags_no: np.ndarray,
               settings: SignificanceSettings) -> None:
    from scipy.stats import bootstrap

    def delta_pp(a: np.ndarray, b: np.ndarray, axis: int = -1) -> np.ndarray:
        return 100 * (np.mean(a, axis=axis) - np.mean(b, axis=axis))

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a constant difference makes a degenerate (but valid) distribution
        ci = bootstrap((flags_with.astype(float), flags_no.astype(float)), delta_pp, paired=True, vectorized=True,
                       n_resamples=settings.resamples, confidence_level=settings.confidence,
                       method="percentile", rng=np.random.default_rng(settings.seed)).confidence_interval
    result.delta_ci = (float(ci.low), float(ci.high))
