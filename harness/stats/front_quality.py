"""Quality of every pair of runs for the ship-candidate front: the sweep's paired test and correction.

The pairs with the champion take the sweep's own comparisons (the corrected p-values its statistics
table prints), so the front never calls a run tied with the champion that the table calls worse;
the other pairs are compared with the same test and form one family, corrected with the same method.
"""

from __future__ import annotations

from typing import Any

from harness.stats.compare import difference_and_p
from harness.stats.correction import correct
from harness.stats.front import Relations
from harness.stats.paired import align
from harness.stats.spec import MetricSpec


def quality_relations(tables: dict[str, list[dict[str, Any]]], primary: MetricSpec, champion: str,
                      versus_champion: dict[str, tuple[float | None, float | None]], alpha: float, test: str,
                      resamples: int, seed: int, correction: str) -> Relations:
    """(a, b) -> +1 when run b is significantly better than run a on ``primary``, -1 when worse, 0 tied.

    Args:
        tables: run name -> per-question rows.
        versus_champion: challenger -> (mean difference challenger - champion, corrected p), from the
            sweep's statistics.
        alpha, test, resamples, seed, correction: the sweep's statistics settings.

    Raises:
        MisalignedError: two runs were scored on different questions.
    """
    scores = {name: {row["question_id"]: row.get(primary.name) for row in rows} for name, rows in tables.items()}
    names = list(tables)
    pairs = [(a, b) for i, a in enumerate(names) for b in names[i + 1:] if champion not in (a, b)]
    compared = [difference_and_p(align(scores[a], scores[b], label=f"metric {primary.name!r}"), test, resamples, seed)
                for a, b in pairs]
    relations: Relations = {}

    def settle(a: str, b: str, difference: float | None, p_value: float | None) -> None:
        worse = primary.worse_by(difference) if difference is not None else 0.0
        move = 0 if p_value is None or p_value >= alpha or worse == 0 else (1 if worse < 0 else -1)
        relations[(a, b)], relations[(b, a)] = move, -move

    for (a, b), (difference, _), p_value in zip(pairs, compared, correct([p for _, p in compared], correction)):
        settle(a, b, difference, p_value)
    for name, (difference, p_value) in versus_champion.items():
        settle(champion, name, difference, p_value)
    return relations
