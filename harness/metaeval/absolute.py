"""Absolute ratings: each column against the annotators' mean rating, question by question."""

from __future__ import annotations

from harness.human.table import RunTable, number
from harness.metaeval.correlation import STATISTICS, ColumnAgreement, bootstrap_estimate
from harness.metaeval.labels import Labels
from harness.metaeval.settings import MetaEvalSettings


def absolute_agreement(labels: Labels, table: RunTable, settings: MetaEvalSettings) -> list[ColumnAgreement]:
    """Pearson, Spearman and Kendall (with bootstrap CIs) of every numeric column of ``table``
    against each dimension's mean rating.

    A question without a value in a column (a metric that did not apply, a failed judgement) is
    left out of that column's figures, never read as 0; a column with fewer than
    ``settings.min_pairs`` labelled values is left out.
    """
    results = []
    for dimension in labels.dimensions:
        human = labels.mean_rating(dimension)
        for column in table.numeric_columns():
            pairs = [(number(table.by_id[qid].get(column)), rating) for qid, rating in human.items()]
            pairs = [(value, rating) for value, rating in pairs if value is not None]
            if len(pairs) < settings.min_pairs:
                continue
            x, y = [p[0] for p in pairs], [p[1] for p in pairs]
            estimates = {s: bootstrap_estimate(s, x, y, settings.resamples, settings.confidence, settings.seed)
                         for s in STATISTICS}
            results.append(ColumnAgreement(dimension, column, len(pairs), estimates, {}))
    return results
