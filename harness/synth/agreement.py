"""How far a sweep scored on one question set ranks its configurations as on another: Kendall's tau
between the two rankings, the share of pairwise verdicts (better, tied, worse by the sweep's own paired
tests) that agree, and how far the absolute figures move.

The verdicts are those of :class:`harness.stats.report.SweepStatistics`, the ``stats`` group a sweep
reports with: each configuration in turn is the champion, compared with every other one as its
sweep would (the test, the correction over its challengers, the winner rule).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

Tables = dict[str, list[dict[str, Any]]]  # configuration -> per-question rows


@dataclass(frozen=True)
class Agreement:
    """The second set's sweep against the first's, on one metric.

    Attributes:
        tau: Kendall's tau-b between the configurations' means (scipy), None when undefined.
        tau_p: its two-sided p-value.
        pairs: configuration pairs compared.
        agreeing: pairs whose verdict (-1 worse, 0 tied, +1 better) is the same on both sets.
        opposed: pairs one set finds better and the other worse.
        decisive: pairs the first set finds better or worse.
        decisive_agreeing: of those, the pairs the second set gives the same verdict.
        shift: mean over configurations of (second mean - first mean).
        abs_shift: mean of |second mean - first mean|.
        means: configuration -> (first mean, second mean).
    """

    tau: float | None
    tau_p: float | None
    pairs: int
    agreeing: int
    opposed: int
    decisive: int
    decisive_agreeing: int
    shift: float
    abs_shift: float
    means: dict[str, tuple[float, float]]

    @property
    def agreement(self) -> float:
        return self.agreeing / self.pairs if self.pairs else math.nan


def mean_of(rows: list[dict[str, Any]], metric: str) -> float:
    """The metric's mean over the rows that have a value."""
    values = [row[metric] for row in rows if row.get(metric) is not None and not math.isnan(row[metric])]
    return sum(values) / len(values) if values else math.nan


def verdicts(tables: Tables, stats) -> dict[tuple[str, str], int]:
    """For each pair ``(a, b)`` of configurations (in ``tables``' order): +1 when the paired test finds
    b better than a, -1 worse, 0 no significant difference; ``stats`` is a configured
    :class:`~harness.stats.report.SweepStatistics` (its ``champion`` is set here, in turn)."""
    names = list(tables)
    found: dict[tuple[str, str], int] = {}
    saved = stats.champion
    try:
        for champion in names[:-1]:
            stats.champion = champion
            report = stats.compare(tables)
            by_name = {c.name: c.verdict.winner for c in report.result.challengers}
            for challenger in names[names.index(champion) + 1:]:
                found[(champion, challenger)] = {"challenger": 1, "champion": -1}.get(by_name[challenger], 0)
    finally:
        stats.champion = saved
    return found


def agreement(first: Tables, second: Tables, metric: str, stats) -> Agreement:
    """``second``'s sweep set against ``first``'s (the same configurations, each scored on its own set)."""
    from scipy.stats import kendalltau

    if list(first) != list(second):
        raise ValueError(f"the two sweeps have other configurations: {list(first)} vs {list(second)}")
    means = {name: (mean_of(first[name], metric), mean_of(second[name], metric)) for name in first}
    tau = kendalltau([a for a, _ in means.values()], [b for _, b in means.values()])
    one, two = verdicts(first, stats), verdicts(second, stats)
    differences = [b - a for a, b in means.values()]
    return Agreement(
        tau=None if math.isnan(tau.statistic) else float(tau.statistic),
        tau_p=None if math.isnan(tau.pvalue) else float(tau.pvalue),
        pairs=len(one), agreeing=sum(one[pair] == two[pair] for pair in one),
        opposed=sum(one[pair] * two[pair] == -1 for pair in one), decisive=sum(one[pair] != 0 for pair in one),
        decisive_agreeing=sum(one[pair] != 0 and one[pair] == two[pair] for pair in one),
        shift=sum(differences) / len(differences), abs_shift=sum(abs(d) for d in differences) / len(differences),
        means=means)

