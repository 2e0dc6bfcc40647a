"""Pairwise preferences: does a column's difference between two runs follow people's preference?

For each column, the per-question difference B - A is set against labels saying how much better
B's answer is than A's, the way published meta-evaluations of RAG metrics compare them: the
differences are min-max normalised onto the label scale, a question without a difference (a
value missing in either run) gets the median normalised difference, and every annotator's label
is its own row, so each question counts once per annotator. Pearson and Spearman are reported
x 100. The sign agreement is the share of questions with a difference whose sign (B better, A
better, tie) is that of the annotators' mean preference.
"""

from __future__ import annotations

import statistics

import numpy as np

from harness.data.records import DatasetError
from harness.human.table import RunTable, number
from harness.metaeval.correlation import ColumnAgreement, bootstrap_estimate
from harness.metaeval.labels import Labels
from harness.metaeval.settings import MetaEvalSettings, Scale

PAIRWISE_STATISTICS = ("pearson", "spearman")
PERCENT = 100.0  # published pairwise figures are correlations x 100


def require_same_questions(a: RunTable, b: RunTable) -> None:
    """Refuses two runs scored on different question sets, naming file and line of the extras."""
    only = [(t, o, qid) for t, o in ((a, b), (b, a)) for qid in t.by_id if qid not in o.by_id]
    if only:
        shown = "\n  ".join(f"{t.path}:{_line(t, qid)}: question '{qid}' is not in {o.name} ({o.path})"
                            for t, o, qid in only[:20])
        raise DatasetError(f"runs scored on different question sets ({len(only)} question(s) in only one):\n  "
                           + shown)


def _line(table: RunTable, qid: str) -> int:
    """The question's line in its per_question.jsonl (rows are read in file order, one per line)."""
    return list(table.by_id).index(qid) + 1


def _difference(a: RunTable, b: RunTable, qid: str, column: str) -> float:
    return number(b.by_id[qid].get(column)) - number(a.by_id[qid].get(column))


def normalised_differences(a: RunTable, b: RunTable, column: str, question_ids: list[str],
                           scale: Scale) -> dict[str, float] | None:
    """question id -> (B - A) min-max normalised onto ``scale``, for questions with both values;
    None when no question has a difference. Equal differences all map to the scale's middle.

    >>> from pathlib import Path
    >>> rows = lambda vs: RunTable("r", Path("r"), [{"question_id": q, "m": v} for q, v in vs.items()])
    >>> normalised_differences(rows({"q1": 0, "q2": 0, "q3": 1}), rows({"q1": 1.5, "q2": 3, "q3": 1}),
    ...                        "m", ["q1", "q2", "q3"], Scale(-2, 2))
    {'q1': 0.0, 'q2': 2.0, 'q3': -2.0}
    """
    diffs = {}
    for qid in question_ids:
        x, y = number(a.by_id[qid].get(column)), number(b.by_id[qid].get(column))
        if x is not None and y is not None:
            diffs[qid] = y - x
    if not diffs:
        return None
    low, high = min(diffs.values()), max(diffs.values())
    if high == low:
        return {qid: (scale.low + scale.high) / 2 for qid in diffs}
    return {qid: scale.low + (d - low) * (scale.high - scale.low) / (high - low) for qid, d in diffs.items()}


def pairwise_agreement(labels: Labels, a: RunTable, b: RunTable, settings: MetaEvalSettings,
                       scale: Scale) -> list[ColumnAgreement]:
    """One :class:`ColumnAgreement` per dimension and column both runs hold numbers in."""
    columns = sorted(set(a.numeric_columns()) & set(b.numeric_columns()))
    results = []
    for dimension in labels.dimensions:
        preference = labels.mean_rating(dimension)
        for column in columns:
            normalised = normalised_differences(a, b, column, list(preference), scale)
            if normalised is None:
                continue
            fill = statistics.median(normalised.values())
            x = [normalised.get(label.question_id, fill) for label in labels.items]
            y = [label.ratings[dimension] for label in labels.items]
            if len(x) < settings.min_pairs:
                continue
            estimates = {s: bootstrap_estimate(s, x, y, settings.resamples, settings.confidence,
                                               settings.seed).scaled(PERCENT) for s in PAIRWISE_STATISTICS}
            agree = [bool(np.sign(_difference(a, b, q, column)) == np.sign(p))
                     for q, p in preference.items() if q in normalised]
            extras = {"sign_agreement": sum(agree) / len(agree), "n_sign": float(len(agree)),
                      "imputed": float(sum(1 for q in preference if q not in normalised))}
            results.append(ColumnAgreement(dimension, column, len(x), estimates, extras))
    return results
