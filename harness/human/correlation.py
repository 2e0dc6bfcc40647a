"""Do automated metrics track human judgment? (seed 003 section 8.4)

Spearman's rho (:func:`scipy.stats.spearmanr`, ties ranked by their mean rank) between the
annotators' mean rating of each dimension and every numeric per-question column of the run:
the answer, retrieval and key-fact metrics and, when a judge ran, the judge's columns.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

from harness.human.annotations import Annotations
from harness.human.table import RunTable, number


@dataclass(frozen=True)
class Correlation:
    """Spearman's rho of one dimension's mean human rating with one column, over ``n`` questions.

    ``rho`` and ``p_value`` are NaN when either side is constant on those questions.
    """

    dimension: str
    column: str
    n: int
    rho: float
    p_value: float


def spearman(x: list[float], y: list[float]) -> tuple[float, float]:
    """Spearman's rho and its two-sided p-value; NaN for a constant input.

    >>> rho, p = spearman([1, 2, 3, 4], [10, 20, 30, 25])  # d^2 = 0+0+1+1: 1 - 6*2/(4*15)
    >>> round(rho, 6), round(p, 6)
    (0.8, 0.2)
    """
    from scipy.stats import ConstantInputWarning, spearmanr

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConstantInputWarning)
        result = spearmanr(x, y)
    return float(result.statistic), float(result.pvalue)


def correlations(annotations: Annotations, table: RunTable, min_pairs: int) -> list[Correlation]:
    """One :class:`Correlation` per dimension and numeric column with at least ``min_pairs``
    questions that have both a human rating and a value (a missing judge value is skipped,
    never read as 0)."""
    results = []
    columns = table.numeric_columns()
    for dimension in annotations.dimensions:
        human = annotations.mean_rating(dimension)
        for column in columns:
            pairs = [(h, number(table.by_id[qid].get(column))) for qid, h in human.items()]
            pairs = [(h, v) for h, v in pairs if v is not None]
            if len(pairs) < min_pairs:
                continue
            rho, p = spearman([h for h, _ in pairs], [v for _, v in pairs])
            results.append(Correlation(dimension, column, len(pairs), rho, p))
    return results


def defined(values: list[Correlation]) -> list[Correlation]:
    """The correlations that are numbers (not NaN)."""
    return [c for c in values if not math.isnan(c.rho)]
