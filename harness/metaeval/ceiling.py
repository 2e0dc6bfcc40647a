"""The human ceiling: how far annotators agree with each other on the labelled questions.

A metric can hardly agree with one person better than people agree with each other, so each
column's correlation is also read as a fraction of this ceiling. Per dimension, every pair of
annotators is compared on the questions both labelled (Pearson, Spearman, and Cohen's kappa,
unweighted and quadratic, from :func:`harness.human.agreement.cohen_kappa`); the ceiling is the
mean over pairs.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

from harness.human.agreement import cohen_kappa
from harness.metaeval.correlation import correlation
from harness.metaeval.labels import Labels
from harness.metaeval.settings import Scale

FIGURES = ("pearson", "spearman", "kappa", "kappa_quadratic")


@dataclass(frozen=True)
class Ceiling:
    """Inter-annotator agreement on one dimension, averaged over annotator pairs (NaN-free mean;
    NaN if no pair defines it). ``pairs`` counts the pairs sharing at least ``min_pairs`` questions."""

    dimension: str
    pairs: int
    pearson: float
    spearman: float
    kappa: float
    kappa_quadratic: float

    def fraction(self, statistic: str, value: float, factor: float = 1.0) -> float:
        """``value`` as a share of this ceiling's ``statistic`` (``factor`` puts both on one scale)."""
        ceiling = getattr(self, statistic, math.nan) * factor
        return value / ceiling if ceiling and not math.isnan(ceiling) else math.nan


def levels(labels: Labels, dimension: str, scale: Scale | None) -> list[float]:
    """The rating levels kappa counts: every step of an integer scale (so an unused level still
    weighs in the quadratic weights), else the ratings that occur."""
    used = sorted({label.ratings[dimension] for label in labels.items})
    if scale is not None and scale.low.is_integer() and scale.high.is_integer() \
            and all(v.is_integer() for v in used):
        return [float(v) for v in range(int(scale.low), int(scale.high) + 1)]
    return used


def ceilings(labels: Labels, scale: Scale | None, min_pairs: int) -> list[Ceiling]:
    """One :class:`Ceiling` per dimension; empty with fewer than two annotators."""
    if len(labels.annotators) < 2:
        return []
    results = []
    for dimension in labels.dimensions:
        ratings = labels.by_annotator(dimension)
        scale_levels = levels(labels, dimension, scale)
        per_pair: dict[str, list[float]] = {name: [] for name in FIGURES}
        pairs = 0
        for first, second in itertools.combinations(labels.annotators, 2):
            shared = [qid for qid in ratings[first] if qid in ratings[second]]
            if len(shared) < min_pairs:
                continue
            pairs += 1
            x, y = [ratings[first][q] for q in shared], [ratings[second][q] for q in shared]
            per_pair["pearson"].append(correlation("pearson", x, y))
            per_pair["spearman"].append(correlation("spearman", x, y))
            discrete = all(float(v).is_integer() for v in x + y)  # kappa counts levels: none on a continuous scale
            per_pair["kappa"].append(cohen_kappa(x, y, scale_levels) if discrete else math.nan)
            per_pair["kappa_quadratic"].append(cohen_kappa(x, y, scale_levels, weights="quadratic")
                                               if discrete else math.nan)
        if pairs:
            results.append(Ceiling(dimension, pairs, **{name: _mean(v) for name, v in per_pair.items()}))
    return results


def _mean(values: list[float]) -> float:
    defined = [v for v in values if not math.isnan(v)]
    return sum(defined) / len(defined) if defined else math.nan
