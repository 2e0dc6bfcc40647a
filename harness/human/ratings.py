"""One annotator's ratings of one question: the one model of people's ratings, whether they come
from filled annotation sheets (:mod:`harness.human.annotations`) or from labels for meta-evaluation
(a JSONL file or people's feedback on traces: :mod:`harness.metaeval.labels`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Sequence


@dataclass(frozen=True)
class Rating:
    """One annotator's ratings of one question, and where they came from.

    Attributes:
        ratings: dimension -> the rating (a sheet's level, or a label's number).
        where: the sheet line (``sheet.csv:3``), the file line (``line 3``) or the trace it came from.
        notes: the annotator's notes (a sheet's notes column).
    """

    question_id: str
    annotator: str
    ratings: dict[str, Any]
    where: str
    notes: str = ""


class RatingSet:
    """What every set of ratings answers, from its ``items`` (in their order)."""

    items: Sequence[Rating]

    @property
    def annotators(self) -> list[str]:
        """Who rated, in first-seen order."""
        return list(dict.fromkeys(item.annotator for item in self.items))

    @property
    def question_ids(self) -> list[str]:
        return list(dict.fromkeys(item.question_id for item in self.items))

    def by_annotator(self, dimension: str) -> dict[str, dict[str, Any]]:
        """annotator (in :attr:`annotators` order) -> question id -> rating."""
        table: dict[str, dict[str, Any]] = {name: {} for name in self.annotators}
        for item in self.items:
            table[item.annotator][item.question_id] = item.ratings[dimension]
        return table

    def mean_rating(self, dimension: str, value: Callable[[Any], float] = float) -> dict[str, float]:
        """question id -> the mean of the annotators' ratings as numbers (``value`` of each), in
        first-seen order."""
        values: dict[str, list[float]] = {}
        for item in self.items:
            values.setdefault(item.question_id, []).append(value(item.ratings[dimension]))
        return {qid: sum(v) / len(v) for qid, v in values.items()}
