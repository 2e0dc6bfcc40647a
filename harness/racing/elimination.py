"""One round of a race: pick the leader, eliminate every configuration found worse than it.

The rule: after a round on the first ``t`` questions, configuration ``c`` is eliminated when a
time-uniform lower bound (:mod:`harness.racing.confseq`) of the mean paired difference between
the leader and ``c`` on the primary metric is above 0, or on a guard metric above the guard's
tolerance. Each bound is taken at level ``alpha / m`` with ``m = K (K - 1) x metrics`` (Bonferroni
over every ordered pair of the ``K`` configurations that started, because the leader is chosen
from the data): with probability at least ``1 - alpha``, over every round at once, no
configuration is ever eliminated unless its mean is truly worse than its eliminator's (beyond
the guard's tolerance), so a truly best configuration survives.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass

import numpy as np

from harness.racing.confseq import TESTS, difference_lower_bound
from harness.stats.spec import MetricSpec


@dataclass(frozen=True)
class Elimination:
    """Why a configuration left the race.

    Attributes:
        name: the configuration.
        round: the round (1-based) after which it left.
        questions: how many questions it had run.
        leader: the configuration it was compared with ("" when it failed).
        metric: the metric that eliminated it ("" when it failed).
        mean_difference: mean of ``leader - name`` (``name - leader`` for a lower-is-better metric).
        bound: the time-uniform lower bound of that mean difference.
        threshold: what the bound had to exceed (0, or a guard's tolerance).
        reason: one line, as the console shows it.
    """

    name: str
    round: int
    questions: int
    leader: str
    metric: str
    mean_difference: float
    bound: float
    threshold: float
    reason: str

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class EliminationRule:
    """Args:
        primary: the metric that picks the leader (``stats.primary``).
        guards: metrics whose significant regression beyond their tolerance also eliminates.
        alpha: family-wise error rate of the whole race.
        test: ``betting``, ``empirical_bernstein`` or ``hoeffding`` (:data:`harness.racing.confseq.TESTS`).
        low, high: the range every per-question value of these metrics lies in.
        min_questions: no elimination before this many questions.
        configurations: how many configurations started the race (``K``).
    """

    primary: MetricSpec
    guards: tuple[MetricSpec, ...]
    alpha: float
    test: str
    low: float
    high: float
    min_questions: int
    configurations: int

    def __post_init__(self) -> None:
        if not 0 < self.alpha < 1:
            raise ValueError(f"race.alpha must be in (0, 1), got {self.alpha!r}")
        if self.test not in TESTS:
            raise ValueError(f"race.test must be one of {sorted(TESTS)}, got {self.test!r}")
        if not self.low < self.high:
            raise ValueError(f"race.bounds must be [low, high] with low < high, got [{self.low}, {self.high}]")
        if self.min_questions < 1:
            raise ValueError(f"race.min_questions must be >= 1, got {self.min_questions}")
        if self.configurations < 1:
            raise ValueError("a race needs at least one configuration")

    @property
    def comparisons(self) -> int:
        """The Bonferroni family: every ordered pair of configurations, on every raced metric."""
        return max(1, self.configurations * (self.configurations - 1)) * (1 + len(self.guards))

    @property
    def level(self) -> float:
        """Each bound's error level."""
        return self.alpha / self.comparisons


Scores = Mapping[str, Mapping[str, Sequence[float | None]]]  # configuration -> metric -> values in race order


def leader_of(scores: Scores, primary: MetricSpec) -> str:
    """The configuration with the best mean primary metric (the first of equals, in given order)."""
    sign = 1 if primary.direction == "higher" else -1

    def mean(name: str) -> float:
        values = [v for v in scores[name][primary.name] if v is not None and not math.isnan(v)]
        return sign * float(np.mean(values)) if values else -math.inf

    return max(scores, key=mean)


def eliminate(scores: Scores, rule: EliminationRule, round_number: int) -> tuple[str, list[Elimination]]:
    """The round's leader and the configurations it eliminates.

    Args:
        scores: per surviving configuration, per metric, the values on the round's questions in
            race order (equal lengths; None where a question has no value, such pairs are skipped).
        rule: the elimination rule.
        round_number: 1-based, recorded in each elimination.

    Raises:
        ValueError: a metric is missing, lengths differ, or a value lies outside the bounds.
    """
    names = list(scores)
    metrics = [rule.primary, *rule.guards]
    lengths = {len(scores[n][m.name]) for n in names for m in metrics if m.name in scores[n]}
    missing = [f"{n}: {m.name}" for n in names for m in metrics if m.name not in scores[n]]
    if missing:
        raise ValueError(f"race: metric missing from the per-question results ({'; '.join(missing)})")
    if len(lengths) > 1:
        raise ValueError(f"race: configurations ran different numbers of questions {sorted(lengths)}")
    questions = lengths.pop() if lengths else 0
    leader = leader_of(scores, rule.primary)
    if questions < rule.min_questions:
        return leader, []
    eliminated = []
    for name in names:
        if name == leader:
            continue
        for metric in metrics:
            better, worse = _pairs(scores[leader][metric.name], scores[name][metric.name], metric.direction)
            if not better.size:
                continue
            bound = difference_lower_bound(better, worse, rule.low, rule.high, rule.level, rule.test)
            if bound > metric.tolerance:
                difference = float(np.mean(better - worse))
                kind = "guard " if metric.role == "guard" else ""
                reason = (f"worse than {leader} on {kind}{metric.name} after {questions} questions: mean difference "
                          f"{difference:.4f}, lower bound {bound:.4f} > {metric.tolerance:g} "
                          f"(anytime-valid {rule.test}, level {rule.level:.2g})")
                eliminated.append(Elimination(name, round_number, questions, leader, metric.name, difference,
                                              bound, metric.tolerance, reason))
                break
    return leader, eliminated


def _pairs(leader: Sequence, other: Sequence, direction: str) -> tuple[np.ndarray, np.ndarray]:
    """Paired values where both exist, oriented so that ``better - worse > 0`` favours the leader."""
    kept = [(a, b) for a, b in zip(leader, other, strict=True)
            if a is not None and b is not None and not (math.isnan(a) or math.isnan(b))]
    a = np.array([p[0] for p in kept], dtype=float)
    b = np.array([p[1] for p in kept], dtype=float)
    return (a, b) if direction == "higher" else (b, a)
