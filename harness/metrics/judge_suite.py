"""The judge suite: the judgements of the judging stage as per-question values and aggregates.

Per question (namespaced ``judge/...`` by the pipeline) each rubric fills its columns, e.g.
``answer_score`` (with-context answer), ``answer_score_no_context``, ``manual_grade``,
``likert_relevance``, ``retrieval_grade``, ``retrieval_total_score``, ``claims_faithfulness``. A
missing judgement leaves its columns None (null in the table), never 0. Column suffixes:

* ``<column>_spread``: the spread of the samples (``judge.samples > 1``); aggregate: mean.
* ``<column>_verdict_<label>``: 1/0 flags; aggregate: the count of each verdict.
* ``<column>_accurate``: 1/0 flag (score >= the rubric's accuracy threshold); aggregate:
  ``<column>_accuracy`` = 100 x the share of accurate scores (seed 004).

Every other column aggregates to its mean over the scored questions, plus ``<column>_n`` (scored)
and ``<column>_missing`` (judgements that failed).
"""

from __future__ import annotations

from harness.metrics.suites import MetricSuite, Scores
from harness.results.records import QuestionRecord


class JudgeSuite(MetricSuite):
    """Reads ``record.judgements``; an unjudged run scores nothing."""

    def score(self, record: QuestionRecord) -> Scores:
        values: Scores = {}
        for judgement in record.judgements.values():
            values.update(judgement.values)
        return values

    def aggregate(self, rows: list[Scores]) -> Scores:
        columns = list(dict.fromkeys(key for row in rows for key in row))
        aggregates: Scores = {}
        for column in columns:
            present = [row[column] for row in rows if column in row]
            scored = [float(v) for v in present if v is not None]
            if "_verdict_" in column:
                aggregates[f"{column}_count"] = float(sum(scored))
            elif column.endswith("_accurate"):
                if scored:
                    aggregates[f"{column.removesuffix('_accurate')}_accuracy"] = 100 * sum(scored) / len(scored)
            elif column.endswith("_spread"):
                if scored:
                    aggregates[column] = sum(scored) / len(scored)
            else:
                if scored:
                    aggregates[column] = sum(scored) / len(scored)
                aggregates[f"{column}_n"] = float(len(scored))
                aggregates[f"{column}_missing"] = float(len(present) - len(scored))
        return aggregates
