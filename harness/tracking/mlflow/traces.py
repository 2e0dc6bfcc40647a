"""A job's questions as MLflow traces: entities built from its per-question rows and stage records.

One trace per question, linked to the job's run (metadata ``mlflow.sourceRun``), tagged
``harness.question_id``. Its root span takes the question (inputs ``question``, ``question_id``) and
gives the answer, or the top passage where nothing was generated; below it one span per stage's work
on the question (:mod:`harness.results.stage_records`): the search as a RETRIEVER span whose outputs
are the chunks as MLflow documents in rank order, the reranker's order in a RERANKER span, each
answer as an LLM span (prompt, answer, token counts, time to first token), each judgement as an
EVALUATOR span with the judge's raw reply, the routing and the scoring. Its assessments are built by
:mod:`harness.tracking.mlflow.assessments`; the metrics that are none (``tracking.trace_assessments``)
are the root span's attribute ``harness.values``. A passage's text is cut at
``tracking.trace_passage_chars`` (the job's ``stages.json`` keeps it whole).

The root span lasts the question's own time: its spans one after another, a batch's span (a
generation call, a rubric's judging for many questions) its share of the batch (:func:`_laid_out`).

Trace and span ids are derived from the run id and question id, so a question of a run always has
the same trace id (:mod:`harness.tracking.mlflow.trace_writer` writes each one once).

The entities are built here, not with ``mlflow.start_span``: that exports each span on its own
(about 90 ms a trace into SQLite, issue 35); these are written a job at a time.
"""

from __future__ import annotations

import base64
import hashlib
import json
import time
from dataclasses import dataclass
from typing import Any

from harness.results.stage_records import SpanRecord, StageRecords
from harness.tracking.mlflow.assessments import assessments_for, other_values
from harness.tracking.trace_policy import TraceContent

QUESTION_TAG = "harness.question_id"
# The root span's attribute holding the question's metrics that are no assessment (tracking.trace_assessments).
VALUES_ATTRIBUTE = "harness.values"
# The stage records' kinds of work as MLflow span types.
SPAN_TYPES = {"retrieval": "RETRIEVER", "rerank": "RERANKER", "generation": "LLM", "routing": "CHAIN",
              "judging": "EVALUATOR", "scoring": "EVALUATOR"}


@dataclass
class BuiltTrace:
    question_id: str
    info: Any  # mlflow.entities.TraceInfo, its assessments included
    spans: list  # mlflow.entities.Span, the root first


def trace_id_for(run_id: str, question_id: str) -> str:
    return "tr-" + _hex(run_id, question_id, length=32)


def build_trace(row: dict[str, Any], stages: StageRecords | None, run_id: str, experiment_id: str,
                name: str, content: TraceContent = TraceContent()) -> BuiltTrace:
    """The trace of one question: ``row`` is its line of the per-question table, ``stages`` the job's
    stage records (None for an older job: the trace then holds what the row holds)."""
    from mlflow.entities import TraceInfo, TraceLocation, TraceState
    from mlflow.tracing.constant import TRACE_SCHEMA_VERSION, TRACE_SCHEMA_VERSION_KEY, TraceMetadataKey, TraceTagKey

    question_id = row["question_id"]
    trace_id = trace_id_for(run_id, question_id)
    trace_hex = trace_id[3:]
    records = stages.spans_of(question_id) if stages is not None else []
    passages = stages.passages if stages is not None else {}
    inputs = {"question": row.get("question", ""), "question_id": question_id}
    outputs = _root_output(row, passages)
    root = _hex(trace_hex, "root")
    laid = _laid_out(records)
    start = laid[0][1] if laid else time.time()
    end = laid[-1][2] if laid else start
    judged = [record for record in records if record.kind == "judging"]
    values = other_values(row, judged, content.assessments)
    failed = row.get("answer_error")  # the question failed: its trace and root span are in error, with the reason
    spans = [_span(trace_hex, root, None, name, "CHAIN", start, end, inputs, outputs,
                   extra={VALUES_ATTRIBUTE: values} if values else None, error=failed)]
    for record, own_start, own_end in laid:
        spans.append(_span(trace_hex, _hex(trace_hex, record.name), root, record.name, SPAN_TYPES.get(record.kind,
                           "UNKNOWN"), own_start, own_end, *_payload(record, passages, content.passage_chars),
                           record))
    expected = stages.expected.get(question_id) if stages is not None else None
    info = TraceInfo(
        trace_id=trace_id, trace_location=TraceLocation.from_experiment_id(experiment_id),
        # The previews (what MLflow's run comparison pairs traces by) are the store's own reading of
        # the root span's inputs and outputs, made when the spans are logged.
        request_time=int(start * 1000), execution_duration=max(round((end - start) * 1000), 0),
        state=TraceState.ERROR if failed else TraceState.OK,
        trace_metadata={TraceMetadataKey.SOURCE_RUN: run_id, TRACE_SCHEMA_VERSION_KEY: str(TRACE_SCHEMA_VERSION)},
        tags={QUESTION_TAG: question_id, TraceTagKey.TRACE_NAME: name},
        assessments=assessments_for(row, judged, expected, trace_id, root, run_id, content.assessments))
    return BuiltTrace(question_id=question_id, info=info, spans=spans)


def _laid_out(records: list[SpanRecord]) -> list[tuple[SpanRecord, float, float]]:
    """Each span with the question's own stretch of it, one after the other from the first span's
    start: a span of a batch (``batch_size`` questions) lasts its share of the batch. The root then
    lasts the sum of its spans, what MLflow's latency charts read as the question's latency."""
    laid, cursor = [], records[0].start if records else 0.0
    for record in records:
        own = max(record.end - record.start, 0.0) / max(int(record.attributes.get("batch_size") or 1), 1)
        laid.append((record, cursor, cursor + own))
        cursor += own
    return laid


def _root_output(row: dict[str, Any], passages: dict[str, dict[str, str]]) -> Any:
    if "answer" in row and not row.get("answer_error"):
        return row["answer"]
    top = (row.get("retrieved_chunk_ids") or [None])[0]
    return passages.get(top, {}).get("text") or top


def _payload(record: SpanRecord, passages: dict[str, dict[str, str]], chars: int = 0) -> tuple[Any, Any]:
    """The span's inputs and outputs in MLflow's shapes (documents for retrieval and reranking)."""
    inputs, outputs = record.inputs, record.outputs
    if record.input_documents is not None:
        inputs = {**(inputs or {}), "documents": _documents(record.input_documents, passages, chars)}
    if record.documents is not None:
        outputs = _documents(record.documents, passages, chars)
    return inputs, outputs


def _documents(hits: list[tuple[str, float]], passages: dict[str, dict[str, str]], chars: int = 0) -> list[dict]:
    """The chunks as MLflow documents, each text cut at ``chars`` characters (0: whole; metadata
    ``truncated`` then says so: the job's stages.json has the full text)."""
    documents = []
    for rank, (chunk_id, score) in enumerate(hits, start=1):
        passage = passages.get(chunk_id, {})
        text = passage.get("text", "")
        metadata = {"doc_id": passage.get("doc_id", chunk_id.split("#", 1)[0]), "chunk_id": chunk_id,
                    "score": score, "rank": rank, **({"title": passage["title"]} if passage.get("title") else {})}
        if chars and len(text) > chars:
            text, metadata["truncated"] = text[:chars], True
        # MLflow's Document.to_dict() shape, without building one per chunk
        documents.append({"page_content": text, "metadata": metadata, "id": chunk_id})
    return documents


def _span(trace_hex: str, span_hex: str, parent_hex: str | None, name: str, span_type: str, start: float,
          end: float, inputs: Any, outputs: Any, record: SpanRecord | None = None, extra: dict | None = None,
          error: str | None = None):
    from mlflow.entities import Span
    from mlflow.tracing.constant import SpanAttributeKey

    attributes: dict[str, Any] = {SpanAttributeKey.REQUEST_ID: "tr-" + trace_hex, SpanAttributeKey.SPAN_TYPE: span_type,
                                  SpanAttributeKey.INPUTS: inputs, SpanAttributeKey.OUTPUTS: outputs}
    attributes.update(extra or {})
    events = []
    if error:
        events.append({"name": "exception", "time_unix_nano": _ns(end),
                       "attributes": {"exception.type": "HarnessError", "exception.message": error}})
    if record is not None:
        attributes.update({key: value for key, value in record.attributes.items() if value is not None})
        if record.usage:
            attributes[SpanAttributeKey.CHAT_USAGE] = {**record.usage, "total_tokens": sum(record.usage.values())}
        if record.kind == "generation" and record.attributes.get("model"):
            attributes[SpanAttributeKey.MODEL] = record.attributes["model"]
        if record.attributes.get("batch_size"):
            attributes["batch_share_seconds"] = round(end - start, 6)
        error = record.error
        shift = start - record.start  # the span's events move with it
        events = [{"name": event["name"], "time_unix_nano": _ns(min(max(event["time"] + shift, start), end)),
                   "attributes": dict(event.get("attributes") or {})} for event in record.events]
        if error:
            events.append({"name": "exception", "time_unix_nano": _ns(end),
                           "attributes": {"exception.type": "HarnessError", "exception.message": error}})
    return Span.from_dict({
        "trace_id": _b64(trace_hex), "span_id": _b64(span_hex),
        "parent_span_id": _b64(parent_hex) if parent_hex else None,
        "name": name, "start_time_unix_nano": _ns(start), "end_time_unix_nano": max(_ns(end), _ns(start)),
        "status": {"code": "STATUS_CODE_ERROR" if error else "STATUS_CODE_OK", "message": error or ""},
        "attributes": {key: json.dumps(value, ensure_ascii=False, default=str) for key, value in attributes.items()
                       if value is not None},
        "events": events})


def _hex(*parts: str, length: int = 16) -> str:
    return hashlib.sha256("\x1f".join(parts).encode()).hexdigest()[:length]


def _b64(hex_id: str) -> str:
    return base64.b64encode(bytes.fromhex(hex_id)).decode()


def _ns(seconds: float) -> int:
    return int(seconds * 1_000_000_000)
