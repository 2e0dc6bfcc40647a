"""One round of a race: pick the leader, eliminate every configuration found worse.

Two rules for the primary metric, chosen by ``race.evidence``, both valid although the results
are read after every round (e-processes and confidence sequences, :mod:`harness.racing.confseq`).
``K`` configurations start, ``G`` guard metrics are raced besides the primary one, and ``alpha``
is split evenly between the primary metric and each guard:

- ``leader`` (the default): configuration ``c`` leaves when the wealth of a gambler who bets,
  question by question, that the running leader beats ``c`` reaches ``K (1 + G) / alpha``
  (:mod:`harness.racing.running_leader`). If ``c`` is truly a best configuration the wealth is a
  nonnegative supermartingale from 1, so ``c`` is eliminated with probability at most
  ``alpha / (K (1 + G))``, and a truly best configuration, however many tie, is eliminated on the
  primary metric with probability at most ``alpha / (1 + G)`` in the whole race.
- ``pairwise``: ``c`` leaves when the time-uniform lower bound of the mean paired difference
  between the round's leader and ``c`` is above 0, each bound at level
  ``alpha / (K (K - 1) (1 + G))`` (Bonferroni over every ordered pair, because the leader is
  chosen from the data). The stronger promise, paid for with later eliminations: no configuration
  is ever eliminated unless its mean is truly worse than its eliminator's.

Guards are always pairwise against the round's leader: ``c`` leaves when the bound of its
regression on a guard is above the guard's margin (level as in ``pairwise``). With probability
at least ``1 - alpha``, over every round at once, a truly best configuration on the primary
metric survives, and no configuration leaves on a guard it does not truly regress.

With ``test=asymptotic`` (:mod:`harness.racing.asymptotic`) the same levels hold only in the
limit: the error rate tends to at most ``alpha`` as ``min_questions`` (its burn-in) grows.

``decide`` says what the race is for. ``winner`` (the default): find the best configuration, so a
configuration leaves once it is shown worse than the leader at all. ``front``: decide which
configurations are as good as the leader, so a (cheaper) configuration stays while its
non-inferiority is undecided and leaves only once the pairwise bound shows it worse than the leader
by more than ``stats.primary.margin``; :func:`decisions` then gives each survivor the sweep's verdict
at the margin (:mod:`harness.stats.margin`) read on the race's time-uniform interval. Both use the pairwise confidence
sequences at ``level``, so the family-wise error over every round stays at most ``alpha``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass

import numpy as np

from harness.racing.asymptotic import NAME as ASYMPTOTIC
from harness.racing.asymptotic import Asymptotic
from harness.racing.confseq import TESTS, difference_lower_bound
from harness.racing.running_leader import running_leader_log_wealth
from harness.stats.margin import judge
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
        bound: the time-uniform lower bound of that mean difference (NaN when bets on the
            running leader eliminated it).
        threshold: what the bound had to exceed (0, or a guard's margin), or, for bets on the
            running leader, what the wealth had to reach (``K (1 + G) / alpha``).
        reason: one line, as the console shows it.
        e_value: the largest wealth of the bets against it on the running leader (NaN otherwise).
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
    e_value: float = math.nan

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class EliminationRule:
    """Args:
        primary: the metric that picks the leader (``stats.primary``).
        guards: metrics whose significant regression beyond their margin also eliminates.
        alpha: family-wise error rate of the whole race.
        test: ``betting``, ``empirical_bernstein``, ``hoeffding`` or ``asymptotic``
            (:data:`harness.racing.confseq.TESTS`).
        low, high: the range every per-question value of these metrics lies in.
        min_questions: no elimination before this many questions.
        configurations: how many configurations started the race (``K``).
        evidence: ``leader`` or ``pairwise`` (:data:`EVIDENCE`; the module's docstring says what each promises).
        tightest_at: ``test=asymptotic`` only: the number of questions at which its bound is narrowest.
        decide: ``winner`` or ``front`` (:data:`DECIDE`; the module's docstring says what each does).
    """

    primary: MetricSpec
    guards: tuple[MetricSpec, ...]
    alpha: float
    test: str
    low: float
    high: float
    min_questions: int
    configurations: int
    evidence: str = "leader"
    tightest_at: float | None = None
    decide: str = "winner"

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
        if self.decide not in DECIDE:
            raise ValueError(f"race.decide must be one of {list(DECIDE)}, got {self.decide!r}")
        if self.evidence not in EVIDENCE:
            raise ValueError(f"race.evidence must be one of {list(EVIDENCE)}, got {self.evidence!r}")
        if self.test == ASYMPTOTIC and not (self.tightest_at is not None and self.tightest_at > 0):
            raise ValueError(f"race.test=asymptotic needs race.tightest_at > 0, got {self.tightest_at!r}")

    @property
    def sequence(self) -> str | Asymptotic:
        """What the bounds and e-processes of :mod:`harness.racing.confseq` take: the test's name,
        or the asymptotic sequence tuned, read from ``min_questions`` on."""
        if self.test == ASYMPTOTIC:
            return Asymptotic(float(self.tightest_at), burn_in=self.min_questions)
        return self.test

    @property
    def label(self) -> str:
        """The test and how it holds, for the console."""
        return "asymptotic confidence sequence" if self.test == ASYMPTOTIC else f"anytime-valid {self.test}"

    @property
    def comparisons(self) -> int:
        """The Bonferroni family of the pairwise bounds: every ordered pair of configurations, on
        every raced metric."""
        return max(1, self.configurations * (self.configurations - 1)) * (1 + len(self.guards))

    @property
    def level(self) -> float:
        """Each pairwise bound's error level (guards always; the primary metric when pairwise)."""
        return self.alpha / self.comparisons

    @property
    def configuration_level(self) -> float:
        """Bets on the running leader: each configuration's error level on the primary metric;
        the wealth against it must reach ``1 / configuration_level``."""
        return self.alpha / (self.configurations * (1 + len(self.guards)))

    def describe(self) -> str:
        """The rule in a few words, for the console."""
        test = self.test + (f", tightest at {self.tightest_at:g} questions" if self.test == ASYMPTOTIC else "")
        if self.decide == "front":
            return (f"alpha {self.alpha} over {self.comparisons} pairwise comparisons ({test}); deciding the front: "
                    f"a configuration leaves once shown worse than the leader beyond the margin "
                    f"{self.primary.margin:g}")
        if self.evidence == "pairwise":
            return f"alpha {self.alpha} over {self.comparisons} pairwise comparisons ({test})"
        guards = f", guards pairwise at level {self.level:.2g}" if self.guards else ""
        return (f"alpha {self.alpha}: bets on the running leader, wealth >= {1 / self.configuration_level:.4g} "
                f"eliminates ({test}{guards})")


EVIDENCE = ("leader", "pairwise")
DECIDE = ("winner", "front")


Scores = Mapping[str, Mapping[str, Sequence[float | None]]]  # configuration -> metric -> values in race order


def leader_of(scores: Scores, primary: MetricSpec) -> str:
    """The configuration with the best mean primary metric (the first of equals, in given order)."""
    sign = 1 if primary.direction == "higher" else -1

    def mean(name: str) -> float:
        values = [v for v in scores[name][primary.name] if v is not None and not math.isnan(v)]
        return sign * float(np.mean(values)) if values else -math.inf

    return max(scores, key=mean)


def eliminate(scores: Scores, rule: EliminationRule, round_number: int,
              retired: Scores | None = None) -> tuple[str, list[Elimination]]:
    """The round's leader and the configurations it eliminates.

    Args:
        scores: per surviving configuration, per metric, the values on the round's questions in
            race order (equal lengths; None where a question has no value, such pairs are skipped).
        rule: the elimination rule.
        round_number: 1-based, recorded in each elimination.
        retired: the configurations that left in earlier rounds (none of ``scores``), with their
            values on the questions they ran (the running leader may have been one of them).

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
        if rule.evidence == "pairwise" or rule.decide == "front":
            found = _against_round_leader(scores, rule, leader, name, questions, round_number, rule.primary)
        else:
            found = _against_running_leader(scores, retired or {}, rule, leader, name, questions, round_number)
        for guard in rule.guards:
            found = found or _against_round_leader(scores, rule, leader, name, questions, round_number, guard)
        if found is not None:
            eliminated.append(found)
    return leader, eliminated


def _against_round_leader(scores: Scores, rule: EliminationRule, leader: str, name: str, questions: int,
                          round_number: int, metric: MetricSpec) -> Elimination | None:
    """The pairwise rule on one metric: the bound of ``name``'s regression against the round's
    leader (every guard; the primary metric when ``rule.evidence`` is pairwise)."""
    better, worse = _pairs(scores[leader][metric.name], scores[name][metric.name], metric.direction)
    if not better.size:
        return None
    bound = difference_lower_bound(better, worse, rule.low, rule.high, rule.level, rule.sequence)
    # a guard, or the primary metric when deciding the front, leaves only beyond its margin
    threshold = metric.margin if metric.role == "guard" or rule.decide == "front" else 0.0
    if not bound > threshold:
        return None
    difference = float(np.mean(better - worse))
    kind = "guard " if metric.role == "guard" else ""
    reason = (f"worse than {leader} on {kind}{metric.name} after {questions} questions: mean difference "
              f"{difference:.4f}, lower bound {bound:.4f} > {threshold:g} "
              f"({rule.label}, level {rule.level:.2g})")
    return Elimination(name, round_number, questions, leader, metric.name, difference, bound, threshold,
                       reason)


def decisions(scores: Scores, rule: EliminationRule, leader: str) -> dict[str, str]:
    """For ``decide: front``, what the race showed of each survivor against ``leader`` on the primary
    metric: the sweep's rule (:func:`harness.stats.margin.judge`: ``better``, ``equivalent``,
    ``non_inferior``, ``worse`` or ``undecided``) read on the race's time-uniform interval of the mean
    difference (both pairwise bounds at the race's level). That interval is wider than a fixed-sample
    interval at the same level, so the race may leave ``undecided`` what a sweep would decide, never
    the opposite. Configurations shown worse beyond the margin have already left."""
    metric = rule.primary
    found = {}
    for name in scores:
        if name == leader:
            continue
        better, worse = _pairs(scores[leader][metric.name], scores[name][metric.name], metric.direction)
        if better.size < rule.min_questions:
            found[name] = "undecided"
            continue
        # the interval of (name - leader), oriented so that positive favours name
        low = difference_lower_bound(worse, better, rule.low, rule.high, rule.level, rule.sequence)
        high = -difference_lower_bound(better, worse, rule.low, rule.high, rule.level, rule.sequence)
        found[name] = judge(float(np.mean(worse - better)), (low, high), metric.margin, "higher").verdict
    return found


def _against_running_leader(scores: Scores, retired: Scores, rule: EliminationRule, leader: str, name: str,
                            questions: int, round_number: int) -> Elimination | None:
    """Bets on the running leader (:mod:`harness.racing.running_leader`) on the primary metric."""
    metric = rule.primary
    values = {other: scores[other][metric.name] for other in scores}
    values |= {other: got[metric.name] for other, got in retired.items() if metric.name in got}
    wealth = running_leader_log_wealth(name, values, metric.direction == "higher", rule.low, rule.high,
                                       rule.configuration_level, rule.sequence)
    reached = float(np.max(wealth, initial=0.0))
    threshold = 1 / rule.configuration_level
    if reached < math.log(threshold):
        return None
    better, worse = _pairs(scores[leader][metric.name], scores[name][metric.name], metric.direction)
    difference = float(np.mean(better - worse)) if better.size else math.nan
    e_value = math.exp(min(reached, 700.0))
    evidence = ("mixture evidence {} >= {} against the running leader" if rule.test == ASYMPTOTIC
                else "wealth {} >= {} betting on the running leader").format(f"{e_value:.4g}", f"{threshold:.4g}")
    reason = (f"worse than {leader} on {metric.name} after {questions} questions: mean difference {difference:.4f}, "
              f"{evidence} "
              f"({rule.label}, level {rule.configuration_level:.2g})")
    return Elimination(name, round_number, questions, leader, metric.name, difference, math.nan, threshold,
                       reason, e_value)


def _present(value) -> bool:
    return value is not None and not math.isnan(value)


def _pairs(leader: Sequence, other: Sequence, direction: str) -> tuple[np.ndarray, np.ndarray]:
    """Paired values where both exist, oriented so that ``better - worse > 0`` favours the leader."""
    kept = [(a, b) for a, b in zip(leader, other, strict=True) if _present(a) and _present(b)]
    a = np.array([p[0] for p in kept], dtype=float)
    b = np.array([p[1] for p in kept], dtype=float)
    return (a, b) if direction == "higher" else (b, a)
