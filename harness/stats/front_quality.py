"""Quality of every pair of runs for the ship-candidate front, as verdicts at the margins.

The pairs with the champion take the sweep's own comparisons (the intervals and verdicts its
statistics table prints), so the front never calls a run as good as the champion that the table
does not. The other pairs are compared with the same test on the primary metric and the guards,
form one more family, corrected with the same method, and get their intervals at the levels that
correction tested them at (:mod:`harness.stats.simultaneous`), so every verdict the front reads is
made under a correction.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from harness.stats.compare import difference_and_p
from harness.stats.equivalence import verdict_interval
from harness.stats.front import Relations
from harness.stats.margin import MarginVerdict, judge, mirrored
from harness.stats.paired import align
from harness.stats.simultaneous import adjusted_levels
from harness.stats.spec import MetricSpec


def quality_relations(tables: dict[str, list[dict[str, Any]]], metrics: list[MetricSpec], champion: str,
                      versus_champion: dict[str, list], alpha: float, test: str, resamples: int, seed: int,
                      correction: str, power: float) -> Relations:
    """Every ordered pair's verdicts on ``metrics`` (the primary first, then the guards).

    Args:
        tables: run name -> per-question rows.
        versus_champion: challenger -> its :class:`~harness.stats.comparison.MetricComparison` list,
            from the sweep's statistics.
        alpha, test, resamples, seed, correction, power: the sweep's statistics settings.

    Raises:
        MisalignedError: two runs were scored on different questions.
    """
    names = list(tables)
    pairs = [(a, b) for i, a in enumerate(names) for b in names[i + 1:] if champion not in (a, b)]
    samples = []
    for a, b in pairs:
        for metric in metrics:
            scores = {name: {row["question_id"]: row.get(metric.name) for row in tables[name]} for name in (a, b)}
            samples.append((a, b, metric, align(scores[a], scores[b], label=f"metric {metric.name!r}")))
    p_values = [difference_and_p(sample, test, resamples, seed)[1] for *_, sample in samples]
    relations: Relations = {(a, b): {} for a in names for b in names if a != b}

    def settle(a: str, b: str, metric: MetricSpec, verdict: MarginVerdict, difference, d, level) -> None:
        sd = float(np.std(d, ddof=1)) if d is not None and len(d) >= 2 else None
        n = 0 if d is None else len(d)
        relations[(a, b)][metric.name] = verdict
        relations[(b, a)][metric.name] = mirrored(verdict, difference, metric.margin, metric.direction, sd, n,
                                                  level, power)

    for (a, b, metric, sample), level in zip(samples, adjusted_levels(p_values, correction, alpha)):
        d = sample.differences
        difference = float(np.mean(d)) if sample.n else None
        bounds = verdict_interval(d, test, level, resamples, seed)
        sd = float(np.std(d, ddof=1)) if sample.n >= 2 else None
        settle(a, b, metric, judge(difference, bounds, metric.margin, metric.direction, sd, sample.n, level, power),
               difference, d, level)
    for name, comparisons in versus_champion.items():
        for c in comparisons:
            settle(champion, name, c.spec, c.decision, c.mean_difference, c.differences, c.ci_level)
    return relations
