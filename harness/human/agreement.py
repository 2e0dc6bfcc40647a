"""Inter-annotator agreement (seed 003 section 8.3): Cohen's kappa per dimension and annotator pair.

Kappa comes from :func:`sklearn.metrics.cohen_kappa_score` with ``labels`` set to the dimension's
full scale, so a level nobody used still counts in the quadratic weights
``w(i, j) = 1 - (i - j)^2 / (R - 1)^2`` (sklearn's weights ``(i - j)^2`` differ by the constant
factor ``(R - 1)^2``, which cancels in kappa). Kappa is undefined (NaN, reported as such) when
chance agreement is 1, e.g. both annotators gave every answer the same level.
"""

from __future__ import annotations

import itertools
import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from harness.human.annotations import Annotations
from harness.human.settings import HumanEvalSettings


@dataclass(frozen=True)
class PairAgreement:
    """Agreement of two annotators on one dimension over the ``n`` questions both rated."""

    dimension: str
    annotator_a: str
    annotator_b: str
    n: int
    observed: float
    kappa: float
    kappa_label: str
    kappa_quadratic: float
    kappa_quadratic_label: str

    @property
    def pair(self) -> str:
        return f"{self.annotator_a}_vs_{self.annotator_b}"


def cohen_kappa(a: Sequence[Any], b: Sequence[Any], levels: Sequence[Any], weights: str | None = None) -> float:
    """Cohen's kappa of two raters over the scale ``levels``; NaN where it is undefined.

    >>> round(cohen_kappa([1, 2, 3, 3], [1, 2, 3, 2], levels=[1, 2, 3]), 4)
    0.6364
    >>> cohen_kappa([1, 2, 3], [1, 2, 3], levels=[1, 2, 3, 4, 5], weights="quadratic")
    1.0
    """
    from sklearn.exceptions import UndefinedMetricWarning
    from sklearn.metrics import cohen_kappa_score

    if len(a) != len(b) or not a:
        raise ValueError(f"kappa needs two equally long, non-empty rating lists, got {len(a)} and {len(b)}")
    with warnings.catch_warnings():
        # Undefined kappa warns (UndefinedMetricWarning since scikit-learn 1.9, a 0/0
        # RuntimeWarning before) and comes back NaN; the report says "undefined" instead.
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        warnings.simplefilter("ignore", RuntimeWarning)
        value = float(cohen_kappa_score(list(a), list(b), labels=list(levels), weights=weights))
    return value if math.isfinite(value) else math.nan


def pairwise_agreement(annotations: Annotations, settings: HumanEvalSettings) -> list[PairAgreement]:
    """Unweighted and quadratic-weighted kappa for every dimension and pair of annotators.

    A pair that shares fewer than ``settings.min_pairs`` questions is left out.
    """
    results = []
    for name, dim in annotations.dimensions.items():
        ratings = annotations.by_annotator(name)
        for first, second in itertools.combinations(annotations.annotators, 2):
            shared = [qid for qid in ratings[first] if qid in ratings[second]]
            if len(shared) < settings.min_pairs:
                continue
            a = [ratings[first][q] for q in shared]
            b = [ratings[second][q] for q in shared]
            kappa = cohen_kappa(a, b, dim.levels)
            quadratic = cohen_kappa(a, b, dim.levels, weights="quadratic")
            results.append(PairAgreement(
                dimension=name, annotator_a=first, annotator_b=second, n=len(shared),
                observed=sum(x == y for x, y in zip(a, b)) / len(shared),
                kappa=kappa, kappa_label=settings.kappa_label(kappa),
                kappa_quadratic=quadratic, kappa_quadratic_label=settings.kappa_label(quadratic)))
    return results
