"""People's labels where they already look: feedback on a run's question traces in MLflow.

Each question of a job's run is one trace, linked to the run by the trace metadata
``mlflow.sourceRun`` and naming its question in the trace tag ``harness.question_id``. A person
who adds a Feedback to such a trace (in the MLflow UI, or with ``mlflow.log_feedback`` and a
HUMAN source) has labelled that question: :func:`human_feedback` reads those labels for
``harness meta-eval`` and ``harness align`` (``--labels mlflow:NAME``), the annotator being the
feedback source's id. Feedback a person later overrode in the UI (no longer valid) is left out;
the checks on the values are those of a labels file (:func:`harness.metaeval.labels.read_labels`).

:func:`tag_traces` marks the traces of a sample (``harness annotate export --tag-traces``), so a
person finds them in the UI's Traces view with the filter ``tags.`harness.annotate` = 'NAME'``.
"""

from __future__ import annotations

from collections.abc import Iterator

from harness.metaeval.labels import FeedbackLabel, FeedbackLabels
from harness.tracking.base import RunRef

QUESTION_TAG = "harness.question_id"
SOURCE_RUN = "mlflow.sourceRun"  # MLflow's trace metadata key linking a trace to its run
HUMAN = "HUMAN"
PREFIX = "mlflow:"  # --labels mlflow:NAME
ANNOTATE_TAG = "harness.annotate"  # harness annotate export --tag-traces NAME
PAGE = 500  # traces per search request


def run_traces(client, run: RunRef) -> Iterator:
    """Every trace of the run (without spans), page by page, oldest first."""
    experiment_id = run.experiment_id or client.get_run(run.run_id).info.experiment_id
    token = None
    while True:
        page = client.search_traces(locations=[experiment_id], filter_string=f"metadata.`{SOURCE_RUN}` = '{run.run_id}'",
                                    max_results=PAGE, order_by=["timestamp_ms ASC"], page_token=token,
                                    include_spans=False)
        yield from page
        token = page.token
        if not token:
            return


def human_feedback(client, run: RunRef, names: list[str]) -> FeedbackLabels:
    """The valid HUMAN feedback named one of ``names`` on the run's traces.

    Args:
        client: an ``MlflowClient`` on the store.
        run: the labelled run.
        names: the feedback names to read (the labels' dimensions).
    """
    from mlflow.entities import Feedback

    items, traces = [], 0
    for trace in run_traces(client, run):
        traces += 1
        question_id = trace.info.tags.get(QUESTION_TAG)
        for assessment in trace.info.assessments or []:
            if not isinstance(assessment, Feedback) or assessment.name not in names or assessment.valid is False:
                continue
            if assessment.source is None or str(assessment.source.source_type) != HUMAN:
                continue
            items.append(FeedbackLabel(trace_id=trace.info.trace_id, question_id=question_id, name=assessment.name,
                                       value=assessment.value, annotator=assessment.source.source_id or "",
                                       assessment_id=assessment.assessment_id))
    return FeedbackLabels(source=f"{PREFIX}{','.join(names)} (run {run.run_id})", dimensions=tuple(names), items=tuple(items),
                          traces=traces)


def trace_filter(name: str) -> str:
    """The search that lists the traces tagged for annotation ``name`` (in the UI and in
    ``MlflowClient.search_traces``)."""
    return f"tags.`{ANNOTATE_TAG}` = '{name}'"


def tag_traces(client, run: RunRef, question_ids: list[str], tag: str, value: str) -> int:
    """Sets the trace tag ``tag`` = ``value`` on the run's traces of ``question_ids``; returns
    how many traces were tagged."""
    wanted = set(question_ids)
    tagged = 0
    for trace in run_traces(client, run):
        if trace.info.tags.get(QUESTION_TAG) in wanted:
            client.set_trace_tag(trace.info.trace_id, tag, value)
            tagged += 1
    return tagged
