"""Many challengers against one champion, corrected as one family, with a verdict each."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from harness.stats.compare import Scores, check_arguments, compare_pair
from harness.stats.comparison import MetricComparison
from harness.stats.correction import METHODS, correct
from harness.stats.simultaneous import adjusted_levels
from harness.stats.spec import MetricSpec
from harness.stats.verdict import Verdict, decide


@dataclass(frozen=True)
class ChallengerResult:
    """One challenger's per-metric comparisons (with corrected p-values) and its verdict."""

    name: str
    metrics: list[MetricComparison]
    verdict: Verdict


@dataclass(frozen=True)
class SweepResult:
    """Every challenger's comparison with the champion; ``correction`` names the method used."""

    correction: str
    challengers: list[ChallengerResult]

    def to_rows(self) -> list[dict]:
        """One flat dict per (challenger, metric), with the challenger's verdict."""
        return [
            {"challenger": c.name, **m.to_row(), "winner": c.verdict.winner}
            for c in self.challengers
            for m in c.metrics
        ]

    def verdict_rows(self) -> list[dict]:
        """One flat dict per (challenger, metric): the verdict at the margin and its reason in words,
        with the challenger's winner (seed 003, 7.5) and that reason."""
        return [
            {"challenger": c.name, "metric": m.spec.name, "role": m.spec.role, "verdict": m.verdict,
             "margin": m.spec.margin, "questions_needed": m.decision.questions_needed, "winner": c.verdict.winner,
             "reason": m.decision.reason, "winner_reason": c.verdict.reason}
            for c in self.challengers for m in c.metrics
        ]


def compare_sweep(
    champion: Scores,
    challengers: dict[str, Scores],
    metrics: Sequence[MetricSpec],
    alpha: float,
    test: str,
    resamples: int,
    seed: int,
    power_target: float,
    correction: str,
) -> SweepResult:
    """Compare each challenger with the champion and decide a winner per challenger.

    The selected test's p-values of every challenger x every metric form one family, corrected
    together with ``correction`` (``"holm"``, ``"bonferroni"``, ``"bh"`` or ``"none"``);
    untestable comparisons stay out of the family. Each winner (seed 003, 7.5) reads the
    corrected p-values; each comparison's interval is built at the level the correction tested it
    at (:mod:`harness.stats.simultaneous`) and gives its five-way verdict at the metric's margin.

    Args:
        champion: metric name -> question id -> value for the current system.
        challengers: challenger name -> the same structure for that challenger.
        metrics: compared metrics; exactly one has role ``"primary"``.
        correction: multiple-comparison method.
        alpha, test, resamples, seed, power_target: as in :func:`~harness.stats.compare.compare_pair`.

    Raises:
        MisalignedError: some metric of some challenger covers other question ids than the champion.
        ValueError: no challengers, not exactly one primary metric, or another invalid argument.
    """
    check_arguments(metrics, alpha, test, resamples, power_target)
    if correction not in METHODS:
        raise ValueError(f"correction must be one of {sorted(METHODS)}, got {correction!r}")
    primaries = [m.name for m in metrics if m.role == "primary"]
    if len(primaries) != 1:
        raise ValueError(f"metrics must include exactly one with role 'primary', got {primaries}")
    if not challengers:
        raise ValueError("challengers must name at least one challenger")
    raw = {
        name: compare_pair(champion, scores, metrics, alpha, test, resamples, seed, power_target)
        for name, scores in challengers.items()
    }
    family = [c for comparisons in raw.values() for c in comparisons]
    p_values = [c.p_value for c in family]
    corrected = iter(zip(correct(p_values, correction), adjusted_levels(p_values, correction, alpha)))
    results = []
    for name, comparisons in raw.items():
        adjusted = [c.with_corrected(*next(corrected), power_target, resamples, seed) for c in comparisons]
        verdict = decide([c.evidence() for c in adjusted], alpha, power_target)
        results.append(ChallengerResult(name, adjusted, verdict))
    return SweepResult(correction, results)
