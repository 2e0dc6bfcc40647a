"""app=python_traced: the example app that traces its own work with MLflow returns only its answer;
its contexts are read from its trace's RETRIEVER span, scored, and that trace is tagged with the
question and linked from the question's app span. A real SQLite store."""

from __future__ import annotations

import sys

import mlflow
from mlflow.tracking import MlflowClient

from harness.cli.sweep import run_from_config
from tests.conftest import PROJECT_ROOT
from tests.tracking.contract_traces import global_tracking_uri

EXAMPLE = PROJECT_ROOT / "examples" / "own_app"


def overrides(uri, tmp_path) -> list[str]:
    return ["dataset=questions_jsonl", f"dataset.questions={EXAMPLE / 'questions.jsonl'}",
            f"dataset.documents={EXAMPLE / 'docs'}", "app=python_traced", "app.target=traced_app:answer",
            "plugins.allowed_targets=[traced_app.answer]", f"tracking.tracking_uri={uri}",
            "experiment_name=traced", f"cache.dir={tmp_path / 'cache'}"]


def test_contexts_come_from_the_apps_own_trace(compose, tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(EXAMPLE))
    for name in ("rag_app", "traced_app"):
        monkeypatch.delitem(sys.modules, name, raising=False)
    uri = f"sqlite:///{tmp_path / 'mlflow.db'}"
    MlflowClient(uri).create_experiment("traced", artifact_location=str(tmp_path / "mlruns"))
    cfg = compose(overrides(uri, tmp_path))
    with global_tracking_uri(uri, monkeypatch):
        result = run_from_config(cfg)
        rows = {row["question_id"]: row for row in result.rows}
        assert rows["q2"]["answer"] == "The Spree flows through it."
        assert rows["q2"]["retrieved_doc_ids"] == ["germany", "spain"]  # from the RETRIEVER span's documents
        assert result.metrics["retrieval/mrr"] == 1.0
        span = next(s for s in result.stages.stages[0].spans["q2"] if s.kind == "generation")
        trace = mlflow.get_trace(span.attributes["app_trace_id"])
        assert trace.info.tags["harness.question_id"] == "q2"
        assert [s.name for s in trace.data.spans] == ["answer", "retrieve"]
        experiment = MlflowClient(uri).get_experiment_by_name("traced").experiment_id
        assert trace.info.experiment_id == experiment
        assert span.attributes["latency_seconds"] < 1.0  # the app's call, not the trace's read-back
        # a second job (seeded alike, other params) writes traces of its own beside the first's
        again = run_from_config(compose([*overrides(uri, tmp_path), "+app.params.top_k=1"]))
        spans = [next(s for s in again.stages.stages[0].spans[q] if s.kind == "generation") for q in ("q1", "q2", "q3")]
        second = {s.attributes["app_trace_id"] for s in spans}
        first = {next(s for s in result.stages.stages[0].spans[q] if s.kind == "generation").attributes["app_trace_id"]
                 for q in ("q1", "q2", "q3")}
        assert len(first | second) == 6
        assert len(mlflow.search_traces(locations=[experiment], return_type="list", include_spans=False)) == 6
