"""Winner determination: primary metric plus guard metrics (seed 003, section 7.5).

1. Any guard metric that significantly regresses (corrected p < alpha and worse by more than
   its margin) -> the champion wins (safety first).
2. Else the primary metric: significantly better for the challenger -> challenger; significantly
   worse -> champion; otherwise no winner, and the reason says how many paired questions the
   observed effect would need.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from harness.stats.spec import MetricSpec


@dataclass(frozen=True)
class MetricEvidence:
    """What the verdict reads about one metric of one challenger-vs-champion comparison.

    Attributes:
        spec: the metric's direction, role and margin.
        mean_difference: mean of ``challenger - champion`` (None when no pairs).
        p_value: the (corrected) p-value of the selected test; None when not testable.
        reason: why the test could not run ("not testable: ..."), else None.
        effect_size: observed Cohen's d, if defined.
        n: number of paired questions.
        n_required: paired questions needed to detect ``effect_size`` at the target power.
    """

    spec: MetricSpec
    mean_difference: float | None
    p_value: float | None
    reason: str | None = None
    effect_size: float | None = None
    n: int = 0
    n_required: int | None = None


@dataclass(frozen=True)
class Verdict:
    """``winner`` is ``"champion"``, ``"challenger"`` or ``"none"``; ``reason`` says why."""

    winner: str
    reason: str


def _significant(e: MetricEvidence, alpha: float) -> bool:
    return e.p_value is not None and e.mean_difference is not None and e.p_value < alpha


def _primary(evidence: Sequence[MetricEvidence]) -> MetricEvidence:
    primaries = [e for e in evidence if e.spec.role == "primary"]
    if len(primaries) != 1:
        names = [e.spec.name for e in primaries]
        raise ValueError(f"evidence must hold exactly one primary metric, got {len(primaries)}: {names}")
    return primaries[0]


def _sample_size_note(e: MetricEvidence, power: float) -> str:
    if e.n_required is None or not e.effect_size:
        return "the observed effect is zero or undefined, so no sample size would detect it"
    return (
        f"detecting the observed effect (d={e.effect_size:.3g}) with power {power:g} "
        f"needs about {e.n_required} paired questions"
    )


def decide(evidence: Sequence[MetricEvidence], alpha: float, power: float) -> Verdict:
    """Apply the 7.5 rule to one challenger's metrics.

    Args:
        evidence: one entry per metric; exactly one has role ``"primary"``.
        alpha: significance level the (corrected) p-values are held to.
        power: target power behind ``n_required`` (quoted in the reason).

    Example:
        >>> f1 = MetricSpec("f1", role="primary")
        >>> decide([MetricEvidence(f1, 0.03, 0.01)], alpha=0.05, power=0.8)
        Verdict(winner='challenger', reason='f1 better for the challenger by 0.03 (p=0.01 < alpha=0.05)')
    """
    primary = _primary(evidence)
    regressions = [
        f"guard {e.spec.name} regressed by {e.spec.worse_by(e.mean_difference):.4g} "
        f"(p={e.p_value:.3g} < alpha={alpha:g})"
        for e in evidence
        if e.spec.role == "guard" and _significant(e, alpha) and e.spec.worse_by(e.mean_difference) > e.spec.margin
    ]
    if regressions:
        return Verdict("champion", "; ".join(regressions))
    name = primary.spec.name
    if primary.p_value is None:
        reason = primary.reason or "not testable: no p-value"
        return Verdict("none", f"no significant difference: primary {name} {reason}")
    if _significant(primary, alpha):
        worse = primary.spec.worse_by(primary.mean_difference)
        if worse == 0:  # a rank test can reject while the means tie
            return Verdict("none", f"{name}: p={primary.p_value:.3g} < alpha={alpha:g} but the mean difference is zero")
        side, word = ("champion", "worse") if worse > 0 else ("challenger", "better")
        by = f"by {abs(worse):.4g} (p={primary.p_value:.3g} < alpha={alpha:g})"
        return Verdict(side, f"{name} {word} for the challenger {by}")
    return Verdict(
        "none",
        f"no significant difference in {name} (p={primary.p_value:.3g} >= alpha={alpha:g}, n={primary.n}); "
        + _sample_size_note(primary, power),
    )
