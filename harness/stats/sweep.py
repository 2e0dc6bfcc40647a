"""Many challengers against one champion, decided as one family by :func:`harness.stats.decide.decide`,
with every descriptive figure of each comparison beside its verdict."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from harness.stats.compare import Scores, check_arguments, compare_metric
from harness.stats.comparison import MetricComparison
from harness.stats.correction import METHODS
from harness.stats.decide import Decision, decide, winners
from harness.stats.paired import align
from harness.stats.result import TestResult
from harness.stats.spec import MetricSpec
from harness.stats.verdict import Verdict


@dataclass(frozen=True)
class ChallengerResult:
    """One challenger's per-metric comparisons (with corrected p-values) and its verdict."""

    name: str
    metrics: list[MetricComparison]
    verdict: Verdict


@dataclass(frozen=True)
class SweepResult:
    """Every challenger's comparison with the champion; ``correction`` names the method used and
    ``decision`` is what :func:`~harness.stats.decide.decide` returned for the family."""

    correction: str
    challengers: list[ChallengerResult]
    decision: Decision | None = None

    def to_rows(self) -> list[dict]:
        """One flat dict per (challenger, metric), with the challenger's verdict."""
        return [
            {"challenger": c.name, **m.to_row(), "winner": c.verdict.winner}
            for c in self.challengers
            for m in c.metrics
        ]

    def verdict_rows(self) -> list[dict]:
        """One flat dict per (challenger, metric): the verdict at the margin and its reason in words,
        with the challenger's winner (read from the verdicts) and that reason."""
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
    front: bool = False,
    pairs_share: float = 0.5,
    champion_name: str = "champion",
) -> SweepResult:
    """Compare each challenger with the champion and decide a winner per challenger.

    Every challenger x every metric is one family decided by :func:`~harness.stats.decide.decide`
    (intervals of the mean difference at the level the correction's error budget gives, verdicts at
    each metric's margin, winners read from the verdicts); each comparison keeps its descriptive
    figures (the t and Wilcoxon tests, Cohen's d, an uncorrected bootstrap interval, power).

    Args:
        champion: metric name -> question id -> value for the current system.
        challengers: challenger name -> the same structure for that challenger.
        metrics: compared metrics; exactly one has role ``"primary"``.
        correction: multiple-comparison method.
        front: a front will be drawn (:meth:`Decision.front_for`): ``pairs_share`` of ``alpha`` is
            kept for its pairs.
        champion_name: the champion's run name (none of ``challengers``).
        alpha, test, resamples, seed, power_target: as in :func:`~harness.stats.compare.compare_pair`.

    Raises:
        MisalignedError: some metric of some challenger covers other question ids than the champion.
        ValueError: no challengers, not exactly one primary metric, or another invalid argument.
    """
    check_arguments(metrics, alpha, test, resamples, power_target)
    if correction not in METHODS:
        raise ValueError(f"correction must be one of {sorted(METHODS)}, got {correction!r}")
    primaries = [m for m in metrics if m.role == "primary"]
    if len(primaries) != 1:
        raise ValueError(f"metrics must include exactly one with role 'primary', got {[m.name for m in primaries]}")
    if not challengers:
        raise ValueError("challengers must name at least one challenger")
    samples = {}
    for name, scores in challengers.items():
        for spec in metrics:
            for side, found in (("champion", champion), (name, scores)):
                if spec.name not in found:
                    raise ValueError(f"{side} has no values for metric {spec.name!r}; it has {sorted(found)}")
            samples[(name, spec.name)] = align(champion[spec.name], scores[spec.name], label=f"metric {spec.name!r}")
    if champion_name in challengers:
        raise ValueError(f"champion_name {champion_name!r} is also a challenger")
    frames = {spec.name: _frame(champion_name, champion[spec.name], {n: s[spec.name] for n, s in challengers.items()})
              for spec in metrics}
    primary = primaries[0]
    guards = {g.name: {"values": frames[g.name], "margin": g.margin, "direction": g.direction}
              for g in metrics if g.role != "primary"}
    decision = decide(frames[primary.name], champion=champion_name, direction=primary.direction, margin=primary.margin,
                      test=test, correction=correction, alpha=alpha, guards=guards, power=power_target,
                      resamples=resamples, seed=seed, pairs_share=pairs_share, metric=primary.name, front=front)
    roles = {spec.name: spec for spec in metrics}
    decided = {(c.challenger, c.spec.name): c for c in decision.comparisons}
    won = winners(decision.comparisons)
    results = []
    for name in challengers:
        compared = []
        for spec in metrics:
            c = decided[(name, spec.name)]
            detail = compare_metric(roles[spec.name], samples[(name, spec.name)], alpha, "t", resamples, seed,
                                    power_target)
            permutation = TestResult(c.mean_difference, c.p) if test == "permutation" and c.p is not None else None
            selected = {"t": detail.t_test, "wilcoxon": detail.wilcoxon}.get(test) or permutation
            compared.append(dataclasses.replace(
                detail, test=test, p_value=c.p, reason=selected.reason if selected else detail.reason,
                permutation=permutation, p_corrected=c.p_adjusted, ci_low=c.decision.low, ci_high=c.decision.high,
                ci_level=c.ci_level, decision=c.decision))
        results.append(ChallengerResult(name, compared, won[name]))
    return SweepResult(correction, results, decision)


def _frame(name: str, champion: dict, challengers: dict[str, dict]):
    """One metric's values, a row per question id (sorted), a column per run, the champion first."""
    import pandas as pd

    ids = sorted(champion, key=str)
    columns = {name: [champion[q] for q in ids]} | {n: [values[q] for q in ids] for n, values in challengers.items()}
    return pd.DataFrame({k: [np.nan if v is None else v for v in vs] for k, vs in columns.items()}, index=ids)
