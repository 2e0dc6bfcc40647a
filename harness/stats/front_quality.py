"""Quality of every pair of runs for the ship-candidate front, as verdicts at the margins.

The pairs with the champion take the champion family's comparisons (the intervals and verdicts the
statistics table prints), so the front never calls a run as good as the champion that the table
does not. The other pairs are compared on the primary metric and the guards as one more family
(:func:`harness.stats.family.decide_family`), with its own share of the error budget: the champion
family spends ``alpha * (1 - share)``, the pairs ``alpha * share``, so a sweep's claims, its table's
and its front's together, keep the promise its correction makes at ``alpha``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from harness.stats.family import decide_family
from harness.stats.front import Relations
from harness.stats.margin import MarginVerdict, mirrored
from harness.stats.paired import align
from harness.stats.spec import MetricSpec


def quality_relations(tables: dict[str, list[dict[str, Any]]], metrics: list[MetricSpec], champion: str,
                      versus_champion: Mapping[str, Sequence[Any]], *, test: str, correction: str, alpha: float,
                      share: float, power: float, resamples: int, seed: int) -> Relations:
    """Every ordered pair's verdicts on ``metrics`` (the primary first, then the guards).

    Args:
        tables: run name -> per-question rows.
        versus_champion: challenger -> its comparisons with the champion, one per metric, each with
            ``spec``, ``decision``, ``mean_difference``, ``sd``, ``n`` and ``ci_level``.
        test, correction, alpha, power, resamples, seed: the decision's settings; ``share``: the
            fraction of ``alpha`` the pairs' family spends.

    Raises:
        MisalignedError: two runs were scored on different questions.
    """
    names = list(tables)
    pairs = [(a, b) for i, a in enumerate(names) for b in names[i + 1:] if champion not in (a, b)]
    keys, differences = [], []
    for a, b in pairs:
        for metric in metrics:
            scores = {name: {row["question_id"]: row.get(metric.name) for row in tables[name]} for name in (a, b)}
            keys.append((a, b, metric))
            differences.append(align(scores[a], scores[b], label=f"metric {metric.name!r}").differences)
    relations: Relations = {(a, b): {} for a in names for b in names if a != b}

    def settle(a: str, b: str, metric: MetricSpec, verdict: MarginVerdict, difference, sd, n, level) -> None:
        relations[(a, b)][metric.name] = verdict
        relations[(b, a)][metric.name] = mirrored(verdict, difference, metric.margin, metric.direction, sd, n,
                                                  level, power)

    if keys:
        family = decide_family(differences, [m.margin for *_, m in keys], [m.direction for *_, m in keys], test,
                               correction, alpha, share, power, resamples, seed)
        for k, (a, b, metric) in enumerate(keys):
            n = int(family.n[k])
            settle(a, b, metric, family.verdicts[k], float(family.mean[k]) if n else None,
                   float(family.sd[k]) if n >= 2 else None, n, family.level)
    for name, comparisons in versus_champion.items():
        for c in comparisons:
            settle(champion, name, c.spec, c.decision, c.mean_difference, c.sd, c.n, c.ci_level)
    return relations
