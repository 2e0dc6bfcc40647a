"""Judge-vs-human bias, and the judge-scored mean corrected by a small human-labelled set.

* **bias** (seed 000 section 5: Haiku graded +1.8 points above humans): the mean judge score
  minus the mean human rating over the questions both scored, the judge first mapped onto the
  dimension's scale (:meth:`~harness.human.settings.Dimension.rescale_judge`).
* **prediction-powered inference** (Angelopoulos et al., Science 2023; ARES uses it to give
  judge-scored RAG metrics confidence intervals): with the judge ``f`` on all ``N`` judged
  questions and the human rating ``Y`` on ``n`` of them,
  ``theta = mean_N(f) - mean_n(f - Y)``: the judge's mean, less the judge's bias measured where
  humans looked. Its CLT interval is ``theta -/+ z * sqrt(var_N(f)/N + var_n(f - Y)/n)``.
  The ``N`` judged questions include the labelled ones (as in ARES, whose judged set is the
  whole evaluation set); the dependence this adds is of order ``n/N``.

The estimator and interval come from ``ppi_py`` (the paper authors' implementation) with
``lam=1``, the classic estimator above; ``ppi_py`` uses population variances (``ddof=0``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from harness.human.annotations import Annotations
from harness.human.settings import Dimension
from harness.human.table import RunTable, number


@dataclass(frozen=True)
class Calibration:
    """One dimension's judge against the humans.

    Attributes:
        n_labelled: questions with both a human rating and a judge score.
        n_judged: questions the judge scored (``N``).
        human_mean: mean human rating on the labelled questions.
        judge_mean_labelled: mean judge score (rescaled) on the same questions.
        bias: ``judge_mean_labelled - human_mean``.
        judge_mean: mean judge score over all judged questions (the uncorrected estimate).
        ppi_mean, ppi_low, ppi_high: the bias-corrected estimate and its interval.
        human_low, human_high: the human-only (classical CLT) interval around ``human_mean``,
            for comparison: PPI is worth it when its interval is narrower.
    """

    dimension: str
    judge_column: str
    n_labelled: int
    n_judged: int
    human_mean: float
    judge_mean_labelled: float
    bias: float
    judge_mean: float
    ppi_mean: float
    ppi_low: float
    ppi_high: float
    human_low: float
    human_high: float
    confidence: float


def judge_scores(table: RunTable, dimension: Dimension) -> dict[str, float]:
    """question_id -> the judge's score on the dimension's scale, for every judged question."""
    column = dimension.judge.column
    scores = {}
    for row in table.rows:
        value = number(row.get(column))
        if value is None:
            continue
        try:
            scores[row["question_id"]] = dimension.rescale_judge(value)
        except ValueError as err:
            raise ValueError(f"{table.path}: question '{row['question_id']}': {err}") from err
    return scores


def ppi_mean(human: np.ndarray, judge_labelled: np.ndarray, judge_all: np.ndarray,
             confidence: float) -> tuple[float, float, float]:
    """The prediction-powered mean and its interval: ``(theta, low, high)``.

    >>> theta, low, high = ppi_mean(np.array([1., 2, 3, 4]), np.array([2., 3, 3, 5]),
    ...                             np.array([2., 3, 3, 5, 4, 4, 1]), confidence=0.95)
    >>> round(theta, 6)  # 22/7 - 3/4
    2.392857
    """
    from ppi_py import ppi_mean_ci, ppi_mean_pointestimate

    theta = ppi_mean_pointestimate(human, judge_labelled, judge_all, lam=1.0)
    low, high = ppi_mean_ci(human, judge_labelled, judge_all, alpha=1.0 - confidence, lam=1.0)
    return float(np.ravel(theta)[0]), float(np.ravel(low)[0]), float(np.ravel(high)[0])


def calibrate(annotations: Annotations, table: RunTable, confidence: float,
              min_pairs: int) -> tuple[list[Calibration], list[str]]:
    """A :class:`Calibration` for each dimension with a judge column; and notes on those skipped."""
    from ppi_py import classical_mean_ci

    results, notes = [], []
    for name, dim in annotations.dimensions.items():
        if dim.judge is None:
            continue
        judged = judge_scores(table, dim)
        human = annotations.mean_rating(name)
        labelled = [qid for qid in human if qid in judged]
        if len(labelled) < min_pairs:
            notes.append(f"{name}: no calibration, {len(labelled)} rated question(s) have a "
                         f"'{dim.judge.column}' score (need {min_pairs})")
            continue
        y = np.array([human[q] for q in labelled])
        f_labelled = np.array([judged[q] for q in labelled])
        f_all = np.array(list(judged.values()))
        theta, low, high = ppi_mean(y, f_labelled, f_all, confidence)
        human_low, human_high = classical_mean_ci(y, alpha=1.0 - confidence)
        results.append(Calibration(
            dimension=name, judge_column=dim.judge.column, n_labelled=len(labelled), n_judged=len(f_all),
            human_mean=float(y.mean()), judge_mean_labelled=float(f_labelled.mean()),
            bias=float(f_labelled.mean() - y.mean()), judge_mean=float(f_all.mean()),
            ppi_mean=theta, ppi_low=low, ppi_high=high, human_low=float(human_low),
            human_high=float(human_high), confidence=confidence))
    return results, notes


def covers(calibration: Calibration, value: float) -> bool:
    """Whether the PPI interval contains ``value``."""
    return not math.isnan(calibration.ppi_low) and calibration.ppi_low <= value <= calibration.ppi_high
