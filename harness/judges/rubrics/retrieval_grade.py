"""Seed 002's retrieval grade and its total score: grade x the position weight of the needle."""

from __future__ import annotations

from typing import Any

from harness.judges.items import JudgeItem
from harness.judges.judgement import Judgement
from harness.judges.rubrics.score import ScoreRubric


class RetrievalGradeRubric(ScoreRubric):
    """A :class:`ScoreRubric` whose grade is also weighted by where the gold document ranked.

    ``total_score = grade x weight``, the weight of the first band whose ``max_rank`` holds the
    gold rank (seed 002: rank 1 -> 1.0, ranks 2-5 -> 0.8), else ``not_found_weight`` (0.5) for a
    needle outside the bands or not retrieved. The aggregate mean of ``total_score_column`` is the
    seed's ``avg_total_score``.

    Args:
        position_weights: ``[{max_rank, weight}]`` in increasing ``max_rank``.
        not_found_weight: the weight when the gold document is not within the bands.
        total_score_column: the per-question column of the total score.
        **kwargs: see :class:`ScoreRubric`.

    Example (seed 002): grade 8 with the needle at rank 3 -> 8 x 0.8 = 6.4.
    """

    def __init__(self, *, position_weights: list, not_found_weight: float, total_score_column: str,
                 **kwargs: Any) -> None:
        bands = [(int(b["max_rank"]), float(b["weight"])) for b in position_weights]
        super().__init__(position_weights=[{"max_rank": r, "weight": w} for r, w in bands],
                         not_found_weight=float(not_found_weight), total_score_column=total_score_column, **kwargs)
        if not bands or any(r < 1 for r, _ in bands) or [r for r, _ in bands] != sorted({r for r, _ in bands}):
            raise ValueError(f"rubric {self.column}: position_weights need increasing max_rank >= 1, got {bands}")
        if len(self.scales) != 1:
            raise ValueError(f"rubric {self.column}: the total score needs a single grade field")
        self.bands_by_rank, self.not_found_weight = bands, float(not_found_weight)
        self.total_score_column = total_score_column

    def position_weight(self, gold_rank: int | None) -> float:
        if gold_rank is not None:
            for max_rank, weight in self.bands_by_rank:
                if gold_rank <= max_rank:
                    return weight
        return self.not_found_weight

    def columns(self, target: str) -> list[str]:
        return [*super().columns(target), self._total_column(target)]

    def values(self, judgement: Judgement, item: JudgeItem) -> dict[str, float | None]:
        values = super().values(judgement, item)
        total = None if judgement.failed else judgement.score * self.position_weight(item.gold_rank)
        values[self._total_column(item.target)] = total
        return values

    def _total_column(self, target: str) -> str:
        return self.total_score_column if target == self.applies_to[0] else f"{self.total_score_column}_{target}"
