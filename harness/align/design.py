"""The design matrix ``harness align`` fits: per labelled row, the runs' numeric columns.

Absolute labels (one run): one row per labelled question, its columns' values, the annotators'
mean rating. Pairwise labels (runs A and B): one row per label line (each annotator's preference
is its own row, as ``harness meta-eval`` reads them), the columns' differences B - A. Either way
``groups`` holds the question id, so a grouped split never puts a question on both sides. A
value missing in the run is NaN here (filled from the training part when fitting, never 0).
"""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass

import numpy as np

from harness.human.table import RunTable, number
from harness.metaeval.labels import Labels

VARIES = 1e-6  # relative spread below which a column counts as constant (float32 noise is ~1e-7)


@dataclass
class Design:
    """Attributes:
        columns: the input columns, in order.
        x: (rows, columns) values, NaN where missing.
        y: the human label of each row.
        groups: the question id of each row.
        pairwise: rows are differences B - A.
        means: the columns' means over the run(s) (both runs' values for pairwise): the value a
            missing input takes when the fitted combination scores a later run.
    """

    columns: list[str]
    x: np.ndarray
    y: np.ndarray
    groups: np.ndarray
    pairwise: bool
    means: dict[str, float]


def candidate_columns(tables: list[RunTable], exclude: tuple[str, ...]) -> list[str]:
    """Numeric columns every run has, minus the excluded patterns."""
    shared = set(tables[0].numeric_columns())
    for table in tables[1:]:
        shared &= set(table.numeric_columns())
    return sorted(c for c in shared if not any(fnmatch.fnmatchcase(c, p) for p in exclude))


def _value(table: RunTable, qid: str, column: str) -> float:
    found = number(table.by_id[qid].get(column))
    return np.nan if found is None else found


def build_design(labels: Labels, dimension: str, tables: list[RunTable], exclude: tuple[str, ...],
                 min_coverage: float) -> Design:
    """The rows, with the columns that cover at least ``min_coverage`` of them and vary."""
    pairwise = len(tables) == 2
    if pairwise:
        rows = [(label.question_id, label.ratings[dimension]) for label in labels.items]
    else:
        rows = list(labels.mean_rating(dimension).items())
    columns, values = [], []
    for column in candidate_columns(tables, exclude):
        if pairwise:
            a, b = tables
            x = np.array([_value(b, qid, column) - _value(a, qid, column) for qid, _ in rows])
        else:
            x = np.array([_value(tables[0], qid, column) for qid, _ in rows])
        present = x[~np.isnan(x)]
        # a column that varies only by float noise would get an enormous weight
        if len(present) >= min_coverage * len(rows) and len(present) \
                and np.ptp(present) > VARIES * max(1.0, float(np.abs(present).max())):
            columns.append(column)
            values.append(x)
    if not columns:
        raise ValueError(f"no numeric column covers {min_coverage:.0%} of the {len(rows)} labelled rows and varies "
                         f"(meta_eval.align.min_coverage, meta_eval.align.exclude)")
    means = {}
    for column in columns:
        pooled = [number(row.get(column)) for table in tables for row in table.rows]
        means[column] = float(np.mean([v for v in pooled if v is not None]))
    return Design(columns=columns, x=np.column_stack(values), y=np.array([r for _, r in rows], dtype=float),
                  groups=np.array([qid for qid, _ in rows]), pairwise=pairwise, means=means)
