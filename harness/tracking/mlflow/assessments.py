"""A question's results as MLflow assessments on its trace.

* the gold answer as an Expectation ``expected_response`` and the gold documents as an Expectation
  ``expected_sources`` (source HUMAN: the dataset's authors, named by the dataset);
* each reported metric of the row (``tracking.trace_assessments``: the leaderboard's columns, the
  primary and guard metrics; all of them when that is null) as a Feedback named by its key
  (``retrieval/ndcg_at_5``), source CODE ``harness``; the row's other metrics are not assessments
  (the trace's root span holds them, :func:`other_values`): a row per value and question in the
  store for what nobody charts is what made a large run's store grow by 42 KB a question;
* a metric that a judge's judgement gave (the judge suite's columns) as a Feedback whose source is
  the judge model (LLM_JUDGE) and whose rationale is the judge's raw reply; where the judgement
  failed (the call failed, the reply stayed unparsable) the Feedback carries the error, never a value.

Every assessment names the job's run (metadata ``mlflow.assessment.sourceRunId``) and the trace's
root span, as ``mlflow.genai.evaluate`` writes them.
"""

from __future__ import annotations

from typing import Any

from harness.results.stage_records import SpanRecord

HARNESS = "harness"
# The error code of a Feedback that has no value, with the reason in its message.
NO_VALUE = "NO_VALUE"


def assessments_for(row: dict[str, Any], judged: list[SpanRecord], expected: dict[str, Any] | None, trace_id: str,
                    span_id: str, run_id: str, assessed: tuple[str, ...] | None = None) -> list:
    """The assessments of the question whose table row is ``row``; ``judged`` are its judging
    spans, ``expected`` its gold (``{"response", "sources"}``; None: read from the row), ``assessed``
    the metrics that are Feedback besides the judges' (None: every metric)."""
    from mlflow.entities import AssessmentError, AssessmentSource, Expectation, Feedback
    from mlflow.tracing.constant import AssessmentMetadataKey

    common = {"trace_id": trace_id, "span_id": span_id, "metadata": {AssessmentMetadataKey.SOURCE_RUN_ID: run_id}}
    gold = expected or {"response": row.get("expected_answer") or " | ".join(row.get("gold_answers") or []) or None,
                        "sources": row.get("gold_doc_ids")}
    dataset = AssessmentSource("HUMAN", "dataset")
    made = [Expectation(name=name, value=value, source=dataset, **common)
            for name, value in (("expected_response", gold.get("response")), ("expected_sources", gold.get("sources")))
            if value not in (None, "", [])]
    code = AssessmentSource("CODE", HARNESS)
    by_column = judged_columns(judged)
    for key, value in row.items():
        if not _metric(key, value):
            continue
        span = by_column.get(key.split("/", 1)[1])
        if span is None and assessed is not None and key not in assessed:
            continue
        if span is not None:
            source = AssessmentSource("LLM_JUDGE", str(span.attributes.get("judge") or "judge"))
            rationale = span.attributes.get("reply")
        else:
            source, rationale = code, None
        if value is None:
            reason = span.error if span is not None and span.error else _missing_reason(row)
            made.append(Feedback(name=key, source=source, rationale=rationale,
                                 error=AssessmentError(error_code=NO_VALUE, error_message=reason), **common))
        else:
            made.append(Feedback(name=key, value=value, source=source, rationale=rationale, **common))
    return made


def other_values(row: dict[str, Any], judged: list[SpanRecord], assessed: tuple[str, ...] | None) -> dict[str, Any]:
    """The row's metrics that are no assessment: what the root span's ``harness.values`` holds."""
    if assessed is None:
        return {}
    by_column = judged_columns(judged)
    return {key: value for key, value in row.items() if _metric(key, value) and key not in assessed
            and key.split("/", 1)[1] not in by_column}


def judged_columns(judged: list[SpanRecord]) -> dict[str, SpanRecord]:
    """A judge suite's column (``answer_score``) -> the judging span that gave it."""
    return {column: span for span in judged for column in span.attributes.get("values", {})}


def _metric(key: str, value: Any) -> bool:
    return "/" in key and isinstance(value, (int, float, str, bool, type(None)))


def _missing_reason(row: dict[str, Any]) -> str:
    if row.get("answer_error"):
        return f"no value: the answer failed ({row['answer_error']})"
    return "no value for this question"
