"""Question traces as the harness's trace writer leaves them (its contract), made here with MLflow's
public API, so tests of what reads traces need not run a sweep.

The contract: each question of a job's run is one trace with the trace tag ``harness.question_id``
and the trace metadata ``mlflow.sourceRun`` = the run's id; the root span's inputs are
``{"question": ..., "question_id": ...}``, its output the answer; a RETRIEVER span holds the
retrieved chunks as MLflow documents (document id in ``metadata.doc_uri``); each per-question
metric of the row is a Feedback of source CODE ``harness``.
"""

from __future__ import annotations

from contextlib import contextmanager


@contextmanager
def global_tracking_uri(uri: str, monkeypatch):
    """MLflow's process-wide tracking URI set to ``uri`` while the block runs, then unset again
    (the environment variable it also sets is restored by ``monkeypatch``): MLflow exports a
    trace to that URI, whichever client started it."""
    import mlflow

    monkeypatch.setenv("MLFLOW_TRACKING_URI", uri)
    mlflow.set_tracking_uri(uri)
    try:
        yield
    finally:
        mlflow.flush_trace_async_logging()
        mlflow.set_tracking_uri(None)


def write_question_traces(uri: str, experiment_id: str, run_id: str, rows: list[dict],
                          metrics: bool = False) -> dict[str, str]:
    """One trace per row (``question_id``, ``question``, ``answer``, optional ``chunks``: a list of
    ``(doc_id, text)``), linked to ``run_id``; with ``metrics``, each ``a/b`` column of the row as a
    CODE feedback. Returns question id -> trace id. Call inside :func:`global_tracking_uri`."""
    import mlflow
    from mlflow import MlflowClient
    from mlflow.entities import AssessmentSource, Document, Feedback, SpanType

    client = MlflowClient(uri)
    traces = {}
    for row in rows:
        qid = row["question_id"]
        root = client.start_trace("question", inputs={"question": row["question"], "question_id": qid},
                                  tags={"harness.question_id": qid}, experiment_id=experiment_id, run_id=run_id)
        if "chunks" in row:
            span = client.start_span("retrieve", trace_id=root.trace_id, parent_id=root.span_id,
                                     span_type=SpanType.RETRIEVER, inputs={"query": row["question"]})
            documents = [Document(page_content=text, metadata={"doc_uri": doc_id, "chunk_id": f"{doc_id}#0"},
                                  id=f"{doc_id}#0").to_dict() for doc_id, text in row["chunks"]]
            client.end_span(root.trace_id, span.span_id, outputs=documents)
        client.end_trace(root.trace_id, outputs=row.get("answer"))
        traces[qid] = root.trace_id
    mlflow.flush_trace_async_logging()
    if metrics:
        source = AssessmentSource(source_type="CODE", source_id="harness")
        for row in rows:
            for key, value in row.items():
                if "/" in key and isinstance(value, (int, float)):
                    client.log_assessment(traces[row["question_id"]], Feedback(name=key, value=value, source=source))
    return traces


def human(annotator: str):
    """The source of a person's feedback."""
    from mlflow.entities import AssessmentSource

    return AssessmentSource(source_type="HUMAN", source_id=annotator)
