"""People's feedback on a run's traces in MLflow as labels: ``harness meta-eval RUN --labels
mlflow:NAME`` and ``harness align ... --labels mlflow:NAME`` give the reports the same labels give
from a file, refuse bad feedback as they refuse bad lines (naming trace and question), and
``harness annotate export --tag-traces`` tags the sample's traces for the UI's search."""

from __future__ import annotations

import json

import numpy as np
import pytest

from harness.cli.align import main as align
from harness.cli.annotate import main as annotate
from harness.cli.meta_eval import main as meta_eval
from harness.results.records import RunResult
from harness.tracking.mlflow.labels import trace_filter
from harness.tracking.mlflow.tracker import MLflowTracker
from harness.tracking.outcome import JobInfo, JobOutcome
from tests.metaeval.conftest import write_jsonl
from harness.tracking.mlflow.traces import QUESTION_TAG
from tests.tracking.contract_traces import global_tracking_uri, human

QUESTIONS = 24
FAST = ["meta_eval.bootstrap.resamples=50", "meta_eval.align.outer_folds=3", "meta_eval.align.inner_folds=2",
        "meta_eval.align.alphas=[0.1,10.0]"]


@pytest.fixture(scope="module")
def labelled(tmp_path_factory):
    """A job's run in a SQLite store with the question traces the harness wrote; alice rates every answer, bob all but
    four: quality ~ 2 m/a - m/b. Yields (uri, run id, trace ids, the same labels as a file's rows)."""
    import mlflow

    tmp = tmp_path_factory.mktemp("labels")
    uri = f"sqlite:///{tmp / 'mlflow.db'}"
    rng = np.random.default_rng(0)
    a, b = rng.normal(3, 1, QUESTIONS), rng.normal(0, 1, QUESTIONS)
    rows = [{"question_id": f"q{i:02d}", "question": f"What is {i}?", "answer": f"It is {i}.", "answer_error": None,
             "m/a": float(a[i]), "m/b": float(b[i]), "m/noise": float(rng.normal())} for i in range(QUESTIONS)]
    tracker = MLflowTracker(uri, "labels", str(tmp / "mlruns"), ui_hint=False)
    result = RunResult(dataset="tiny", dataset_sha256="abc", rows=rows, metrics={})
    result.write(tmp / "job")
    run_id = tracker.log_job(JobOutcome(status="FINISHED", output_dir=tmp / "job", result=result),
                             JobInfo(name="retriever=bm25", choices={}, overrides=[], params={}, config_yaml=""), None)
    experiment_id = tracker.resolve_run(run_id).experiment_id
    with pytest.MonkeyPatch.context() as monkeypatch, global_tracking_uri(uri, monkeypatch):
        # the traces the harness wrote for the job, one per question: what a person labels in the UI
        traces = {trace.info.tags[QUESTION_TAG]: trace.info.trace_id for trace in mlflow.search_traces(
            locations=[experiment_id], run_id=run_id, return_type="list", include_spans=False)}
        assert sorted(traces) == [row["question_id"] for row in rows]
        file_rows = []
        for i, row in enumerate(rows):
            for annotator, noise in (("alice", 0.0), ("bob", 0.5)):
                if annotator == "bob" and i % 6 == 5:
                    continue
                rating = int(round(2 * a[i] - b[i] + noise))
                mlflow.log_feedback(trace_id=traces[row["question_id"]], name="quality", value=rating,
                                    source=human(annotator))
                file_rows.append({"question_id": row["question_id"], "annotator": annotator, "quality": rating})
        # someone else's feedback, a judge's, and a person's overridden first try are not labels
        mlflow.log_feedback(trace_id=traces["q00"], name="style", value=1, source=human("alice"))
        mlflow.log_feedback(trace_id=traces["q00"], name="quality", value=0.5,
                            source=mlflow.entities.AssessmentSource(source_type="LLM_JUDGE", source_id="gpt"))
        first = mlflow.log_feedback(trace_id=traces["q01"], name="quality", value=99, source=human("carol"))
        mlflow.override_feedback(trace_id=traces["q01"], assessment_id=first.assessment_id, value=3,
                                 source=human("carol"))
        file_rows.insert(2 * 1 + 2, {"question_id": "q01", "annotator": "carol", "quality": 3})
        yield uri, run_id, traces, file_rows, tmp


def test_meta_eval_and_align_read_the_feedback_as_they_read_the_file(labelled, tmp_path, capsys):
    uri, run_id, _, file_rows, _ = labelled
    path = write_jsonl(tmp_path / "labels.jsonl", file_rows)
    outputs = {}
    for name, labels in (("mlflow", "mlflow:quality"), ("file", str(path))):
        out = tmp_path / name
        assert meta_eval([run_id, "--labels", labels, "--tracking-uri", uri, "--no-tracking", "--out-dir",
                          str(out / "meta"), *FAST]) == 0
        assert align([run_id, "--labels", labels, "--tracking-uri", uri, "--no-tracking", "--out-dir",
                      str(out / "align"), "--config-dir", str(out / "conf"), *FAST]) == 0
        # the same words (rich wraps the table's title by its length), the labels and folders named apart
        words = " ".join(capsys.readouterr().out.split())
        outputs[name] = words.replace(labels, "LABELS").replace(str(out), "OUT")
    assert "3 annotator(s)" in outputs["mlflow"] and f"LABELS (run {run_id})" in outputs["mlflow"]
    assert outputs["mlflow"].replace(f"LABELS (run {run_id})", "LABELS") == outputs["file"]
    for report in ("meta/meta_eval.csv", "align/align.csv"):
        assert (tmp_path / "mlflow" / report).read_text() == (tmp_path / "file" / report).read_text()
    fitted = [json.dumps(__import__("yaml").safe_load((tmp_path / n / "conf/metrics/aligned/judge.yaml").read_text())
                         ["weights"]) for n in ("mlflow", "file")]
    assert fitted[0] == fitted[1]


def test_bad_feedback_is_refused_naming_trace_and_question(labelled, capsys, monkeypatch):
    import mlflow

    uri, run_id, traces, _, _ = labelled
    with global_tracking_uri(uri, monkeypatch):
        mlflow.log_feedback(trace_id=traces["q02"], name="tone", value="good", source=human("alice"))
        mlflow.log_feedback(trace_id=traces["q03"], name="tone", value=2, source=human("alice"))
        twice = mlflow.log_feedback(trace_id=traces["q03"], name="tone", value=3, source=human("alice"))
        mlflow.log_feedback(trace_id=traces["q04"], name="tone", value=True, source=human("bob"))
    assert meta_eval([run_id, "--labels", "mlflow:tone", "--tracking-uri", uri, "--no-tracking", *FAST]) == 2
    err = capsys.readouterr().err
    where = f"mlflow:tone (run {run_id}) trace"
    assert f"{where} {traces['q02']} (question q02), feedback a-" in err
    assert "field 'tone' must be a finite number, got 'good'" in err
    assert f"{where} {traces['q03']} (question q03), feedback {twice.assessment_id}: annotator 'alice' labelled " \
           f"question 'q03' twice (first on feedback a-" in err
    assert f"{where} {traces['q04']} (question q04), feedback a-" in err
    assert "field 'tone' must be a finite number, got True" in err
    assert meta_eval([run_id, "--labels", "mlflow:nothing", "--tracking-uri", uri, "--no-tracking"]) == 2
    assert f"none of the run's {QUESTIONS} traces has a human feedback named 'nothing'" in capsys.readouterr().err
    # one label is too few to fit, as a one-line labels file is
    assert align([run_id, "--labels", "mlflow:style", "--tracking-uri", uri, "--no-tracking", *FAST]) == 2
    assert "no numeric column covers 80% of the 1 labelled rows and varies" in capsys.readouterr().err


def test_annotate_export_tags_the_sampled_traces_for_the_ui(labelled, capsys):
    from mlflow import MlflowClient

    uri, run_id, traces, _, tmp = labelled
    assert annotate(["export", run_id, "--strategy", "random", "--n", "5", "--tag-traces", "batch-1",
                     "--tracking-uri", uri]) == 0
    out = capsys.readouterr().out
    assert "Tagged 5 traces" in out and "tags.`harness.annotate` = 'batch-1'" in out
    client = MlflowClient(uri)
    experiment = client.get_run(run_id).info.experiment_id
    found = client.search_traces(locations=[experiment], filter_string=trace_filter("batch-1"), include_spans=False)
    assert len(found) == 5 and {t.info.trace_id for t in found} <= set(traces.values())
