"""``meta_eval.align`` (conf/meta_eval/default.yaml) as a validated object."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class AlignSettings:
    """Args:
        outer_folds: grouped folds whose held-out predictions are reported.
        inner_folds: grouped folds, inside each outer training part, that choose the penalty.
        alphas: the ridge penalties searched (columns are standardised first).
        min_coverage: the share of labelled rows a column must have a value on to be an input.
        exclude: fnmatch patterns of columns never used as inputs.
        seed: shuffles the questions before they are dealt into folds.
    """

    outer_folds: int
    inner_folds: int
    alphas: tuple[float, ...]
    min_coverage: float
    exclude: tuple[str, ...] = ()
    seed: int = 0

    @classmethod
    def folds(self, count: int, questions: int):
        """``GroupKFold`` over at most ``questions`` folds, questions shuffled by the seed (unshuffled,
        questions in file order would be dealt alternately, e.g. all right answers into one fold)."""
        from sklearn.model_selection import GroupKFold

        return GroupKFold(n_splits=min(count, questions), shuffle=True, random_state=self.seed)

    @classmethod
    def of(cls, value: Mapping[str, Any], extra_exclude: Sequence[str] = (), seed: int = 0) -> "AlignSettings":
        try:
            settings = cls(outer_folds=int(value["outer_folds"]), inner_folds=int(value["inner_folds"]),
                           alphas=tuple(float(a) for a in value["alphas"]),
                           min_coverage=float(value["min_coverage"]),
                           exclude=tuple(value.get("exclude") or ()) + tuple(extra_exclude), seed=int(seed))
        except KeyError as err:
            raise ValueError(f"meta_eval.align.{err.args[0]} is not set") from None
        if settings.outer_folds < 2 or settings.inner_folds < 2:
            raise ValueError(f"meta_eval.align.outer_folds and inner_folds must be >= 2, got "
                             f"{settings.outer_folds}, {settings.inner_folds}")
        if not settings.alphas or any(a <= 0 for a in settings.alphas):
            raise ValueError(f"meta_eval.align.alphas must be positive penalties, got {list(settings.alphas)}")
        if not 0 < settings.min_coverage <= 1:
            raise ValueError(f"meta_eval.align.min_coverage must lie in (0, 1], got {settings.min_coverage}")
        return settings
