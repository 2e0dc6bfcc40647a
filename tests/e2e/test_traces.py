"""Every question in MLflow's own views: a small sweep's traces read back from its SQLite store, the
same question paired across two runs as MLflow's run comparison pairs them, `harness sync` filling
the traces a run lacks without writing any twice, the traces tab seen in a real MLflow UI in
headless Chromium, and a store that refuses writes reported in one line."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from mlflow.tracking import MlflowClient
from omegaconf import OmegaConf

from harness.results.table import read_table
from harness.tracking.mlflow.traces import QUESTION_TAG, VALUES_ATTRIBUTE
from harness.tracking.mlflow.store import open_client
from tests.conftest import TINY_DATASET_OVERRIDES
from tests.e2e.test_sweep import run_cli, split
from tests.services import start_mlflow_server

pytestmark = pytest.mark.slow

BROWSER = Path(__file__).resolve().parents[1] / "browser"
# the leaderboard's columns: the metrics each trace has as assessments (tracking.trace_assessments)
HEADLINE = list(OmegaConf.load(Path(__file__).resolve().parents[2] / "conf" / "config.yaml").report.headline)
ANSWERS = {"t1": "Tokens expire after 3600 seconds.", "t2": "100 connections", "t3": "Fifty requests per hour.",
           "t4": "one day"}


@pytest.fixture(scope="module")
def sweep(tmp_path_factory):
    """Two configurations on the tiny data; two of the four questions answered (from a predictions file).
    Run by the sweep's own process (hydra/launcher=basic), their traces go through the writer process
    (a sweep of larger jobs uses it; the tiny ones would be written by the sweep's own process), as
    the harness launcher's workers hand theirs to it (the last test here)."""
    folder = tmp_path_factory.mktemp("traces")
    predictions = folder / "predictions.jsonl"
    predictions.write_text("".join(json.dumps({"question_id": q, "answer": a, "input_tokens": 50, "output_tokens": 6})
                                   + "\n" for q, a in ANSWERS.items()))
    done = run_cli(folder, *TINY_DATASET_OVERRIDES, "chunker=none", "retriever=bm25,dense", "generator=predictions",
                   f"generator.path={predictions}", "generation.sample=2", "metrics.answer.bertscore=null",
                   "tracking.background_traces_from=0", "hydra/launcher=basic")
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return folder


def traces_of(client: MlflowClient, run) -> list:
    found = client.search_traces(locations=[run.info.experiment_id], run_id=run.info.run_id, max_results=100)
    return sorted(found, key=lambda t: t.info.tags[QUESTION_TAG])


def children_of(folder: Path) -> tuple[MlflowClient, list]:
    client = MlflowClient(f"sqlite:///{folder / 'mlflow.db'}")
    _, children = split(client.search_runs([client.get_experiment_by_name("e2e").experiment_id]))
    return client, sorted(children, key=lambda r: r.info.run_name)


def test_every_question_of_every_run_is_a_trace_with_its_spans_and_assessments(sweep):
    client, children = children_of(sweep)
    assert len(children) == 2
    previews = {}
    for run in children:
        rows = {row["question_id"]: row for row in read_table(Path(run.data.tags["harness.output_dir"]))}
        traces = traces_of(client, run)
        assert [t.info.tags[QUESTION_TAG] for t in traces] == ["t1", "t2", "t3", "t4"]
        for trace in traces:
            qid = trace.info.tags[QUESTION_TAG]
            row = rows[qid]
            assert trace.info.trace_metadata["mlflow.sourceRun"] == run.info.run_id
            root = trace.data.spans[0]
            assert root.parent_id is None and root.inputs == {"question": row["question"], "question_id": qid}
            # the question's own time: the root lasts the sum of its spans (a batch's share each), not the job
            own = sum(span.end_time_ns - span.start_time_ns for span in trace.data.spans[1:]) / 1e6
            assert own - 1 <= trace.info.execution_duration <= own + 5
            assert (root.end_time_ns - root.start_time_ns) / 1e6 == pytest.approx(own, abs=1)
            spans = {span.name: span for span in trace.data.spans[1:]}
            search = spans["search"]
            assert search.span_type == "RETRIEVER"
            assert [d["id"] for d in search.outputs] == row["retrieved_chunk_ids"]
            assert all(d["page_content"] and d["metadata"]["doc_id"] for d in search.outputs)
            assessments = {a.name: a for a in trace.info.assessments}
            # the reported metrics (the leaderboard's columns) as Feedback by their key, the rest in the root span
            metrics = {key for key in row if "/" in key}
            reported = metrics & set(HEADLINE)
            others = root.attributes.get(VALUES_ATTRIBUTE, {})
            assert reported and reported <= set(assessments) and set(others) == metrics - set(assessments)
            assert all(assessments[k].value == pytest.approx(v) for k, v in row.items() if k in reported and v is not None)
            assert all(others[k] == pytest.approx(v) for k, v in row.items() if k in others and v is not None)
            assert assessments["expected_sources"].value == row["gold_doc_ids"]
            assert len(trace.info.assessments) == len(assessments)
            if "answer" in row:  # in the sample: answered
                assert root.outputs == row["answer"] == ANSWERS[qid]
                llm = spans["generate with_context"]
                assert llm.span_type == "LLM" and llm.outputs == row["answer"]
                assert llm.inputs["messages"][-1]["role"] == "user" and row["question"] in llm.inputs["messages"][-1][
                    "content"]
                assert llm.attributes["mlflow.chat.tokenUsage"]["total_tokens"] == 56
                assert assessments["expected_response"].value == row["expected_answer"]
            else:  # only retrieved: the top passage
                assert root.outputs == search.outputs[0]["page_content"] and "generate with_context" not in spans
            previews.setdefault(qid, set()).add(trace.info.request_preview)
    # MLflow's comparison of two evaluation runs pairs their traces by request preview: one per question.
    assert all(len(found) == 1 for found in previews.values()) and len(set.union(*previews.values())) == 4


def test_mlflow_overview_latency_is_the_questions_own_time(sweep):
    """The experiment Overview charts latency from the store's trace metrics: its p50 and mean are
    the median and mean of the questions' span sums, not the jobs' durations."""
    from mlflow.entities.trace_metrics import AggregationType, MetricAggregation, MetricViewType
    from mlflow.tracing.client import TracingClient
    from mlflow.tracing.constant import TraceMetricKey

    client, children = children_of(sweep)
    own = [sum(span.end_time_ns - span.start_time_ns for span in trace.data.spans[1:]) / 1e6
           for run in children for trace in traces_of(client, run)]
    assert len(own) == 8
    store = TracingClient(f"sqlite:///{sweep / 'mlflow.db'}").store
    points = store.query_trace_metrics([children[0].info.experiment_id], MetricViewType.TRACES, TraceMetricKey.LATENCY,
                                       [MetricAggregation(AggregationType.PERCENTILE, 50.0),
                                        MetricAggregation(AggregationType.AVG)])
    values = {key: value for point in points for key, value in point.values.items()}
    assert values["AVG"] == pytest.approx(sum(own) / len(own), abs=2)
    # MLflow's percentile interpolates between the two middle traces as the median does
    assert values["P50.0"] == pytest.approx(float(np.median(own)), abs=2)


def test_sync_writes_the_traces_a_run_lacks_and_none_twice(sweep, tmp_path):
    client, (run, other) = children_of(sweep)
    lost = [t.info.trace_id for t in traces_of(client, run)][:3]
    client.delete_traces(run.info.experiment_id, trace_ids=lost)  # what a store lost meanwhile would lack
    assert len(traces_of(client, run)) == 1
    for attempt in range(2):
        done = subprocess.run([sys.executable, "-m", "harness", "sync", str(sweep / "sweep")], cwd=sweep,
                              capture_output=True, text=True, timeout=600, env={**os.environ, "HF_HUB_OFFLINE": "1"})
        assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
        # it says what it wrote: the traces the run lacked, then none
        restored = 0 if attempt else len(lost)
        assert f": run {run.info.run_id} FINISHED; 0 metrics, 0 tables, {restored} traces" in done.stdout, done.stdout
        assert f"(0 created, 0 completed, 2 logged before); 0 metrics, 0 tables, {restored} traces written" in done.stdout
        for child in (run, other):
            traces = traces_of(client, child)
            assert [t.info.tags[QUESTION_TAG] for t in traces] == ["t1", "t2", "t3", "t4"]
            counts = [len(t.info.assessments) for t in traces]
            assert all(len({a.name for a in t.info.assessments}) == n for t, n in zip(traces, counts))


def harness_traces(sweep: Path, *args: str) -> list[str]:
    done = subprocess.run([sys.executable, "-m", "harness", "traces", *args], cwd=sweep, capture_output=True,
                          text=True, timeout=600, env={**os.environ, "HF_HUB_OFFLINE": "1"})
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return done.stdout.strip().splitlines()


def test_harness_traces_writes_the_questions_a_run_lacks_as_they_were_and_none_twice(sweep):
    client, (run, other) = children_of(sweep)
    before = {t.info.tags[QUESTION_TAG]: t for t in traces_of(client, run)}
    client.delete_traces(run.info.experiment_id, trace_ids=[before[q].info.trace_id for q in ("t1", "t2", "t3")])
    name = run.info.run_name
    lines = harness_traces(sweep, str(sweep / "sweep"), "--questions", "t2")
    assert f"{name} ({run.info.run_id}): 1 trace(s) written" in lines and lines[-1] == "Wrote 1 trace(s) into 2 run(s)"
    assert [t.info.tags[QUESTION_TAG] for t in traces_of(client, run)] == ["t2", "t4"]
    # one run's folder: every question it lacks, then nothing twice
    folder = Path(run.data.tags["harness.output_dir"])
    assert harness_traces(sweep, str(folder), "--all") == [f"{name} ({run.info.run_id}): 2 trace(s) written",
                                                            "Wrote 2 trace(s) into 1 run(s)"]
    assert harness_traces(sweep, str(sweep / "sweep"), "--all")[-1] == "Wrote 0 trace(s) into 2 run(s)"
    after = {t.info.tags[QUESTION_TAG]: t for t in traces_of(client, run)}
    for qid, trace in before.items():  # the same content as the traces written when the run was logged
        again = after[qid]
        assert again.info.trace_id == trace.info.trace_id
        assert sorted((a.name, json.dumps(a.value)) for a in again.info.assessments) == sorted(
            (a.name, json.dumps(a.value)) for a in trace.info.assessments)
        assert [(s.name, s.inputs, s.outputs, s.end_time_ns - s.start_time_ns) for s in again.data.spans] == [
            (s.name, s.inputs, s.outputs, s.end_time_ns - s.start_time_ns) for s in trace.data.spans]


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed: no headless browser")
def test_the_mlflow_ui_lists_a_runs_questions_with_their_metrics_and_pairs_them_across_runs(sweep, tmp_path):
    if not (BROWSER / "node_modules").is_dir():
        pytest.fail(f"{BROWSER}/node_modules is missing: run `make install` (npm ci --prefix tests/browser)")
    client, (run, other) = children_of(sweep)
    trace, paired = traces_of(client, run)[0], traces_of(client, other)[0]
    question = trace.data.spans[0].inputs["question"]
    server = start_mlflow_server(f"sqlite:///{sweep / 'mlflow.db'}", tmp_path / "artifacts")
    experiment = f"{server.uri}/#/experiments/{run.info.experiment_id}"
    pages = [{"name": "traces", "url": f"{experiment}/runs/{run.info.run_id}/traces", "expect": [question]},
             {"name": "compare", "expect": [question, trace.info.trace_id[:8], paired.info.trace_id[:8]],
              "url": f"{experiment}/evaluation-runs?selectedRunUuid={run.info.run_id}"
                     f"&compareToRunUuid={other.info.run_id}"}]
    try:
        plan = tmp_path / "plan.json"
        plan.write_text(json.dumps({"pages": pages}))
        done = subprocess.run(["node", str(BROWSER / "mlflow_ui.js"), str(plan)], capture_output=True, text=True,
                              timeout=300)
    finally:
        server.stop()
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    seen, compared = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen["found"] == {question: True} and seen["errors"] == []
    metrics = {key for row in read_table(Path(run.data.tags["harness.output_dir"])) for key in row if "/" in key}
    columns = {header.splitlines()[0] for header in seen["headers"]}
    # An assessment column: MLflow heads it with the metric's name after its suite's ("ndcg_at_5"), and its mean.
    assert any(key.rsplit("/", 1)[-1] in columns for key in metrics), json.dumps(seen["headers"])
    assert any("AVG" in header for header in seen["headers"])
    # Comparing the two runs: the question once, its two traces (one per run) side by side.
    assert all(compared["found"].values()) and compared["counts"][question] == 1, compared


def test_a_store_that_refuses_writes_gets_one_line_and_the_results_stay(tmp_path):
    store = tmp_path / "mlflow.db"
    open_client(f"sqlite:///{store}").create_experiment("e2e")
    # SQLite's read-only mode: chmod would not stop a test that runs as root.
    refusing = f"sqlite:///file:{store}?mode=ro&uri=true"
    args = [sys.executable, "-m", "harness", *TINY_DATASET_OVERRIDES, "chunker=none", "retriever=bm25",
            f"cache.dir={tmp_path / 'cache'}", f"hydra.run.dir={tmp_path / 'run'}", "experiment_name=e2e"]
    done = subprocess.run(args, cwd=tmp_path, capture_output=True, text=True, timeout=600,
                          env={**os.environ, "HF_HUB_OFFLINE": "1", "MLFLOW_TRACKING_URI": refusing})
    assert done.returncode == 1
    (line,) = [line for line in done.stdout.splitlines() if line.startswith("NOT LOGGED")]
    assert f"the store {refusing} refused the run: (sqlite3.OperationalError) attempt to write a readonly " \
           f"database; the results are in {tmp_path / 'run'}" in line
    assert "Traceback" not in done.stderr and "INSERT INTO" not in done.stdout + done.stderr
    assert len(read_table(tmp_path / "run")) == 4


def test_a_workers_traces_go_to_the_sweeps_writer_and_a_refusal_reaches_the_end_report_and_sync(tmp_path):
    """Under the harness launcher (``harness -m``'s default) a job's traces are handed to the
    sweep's process with the job's answer and written there by its writer process while the worker
    computes the next job. A store that refuses them (a trigger on MLflow's trace table: the runs
    are logged, the traces are not) is named in the end report, and ``harness sync`` writes them."""
    store = tmp_path / "mlflow.db"
    uri = f"sqlite:///{store}"
    open_client(uri).create_experiment("e2e")
    with sqlite3.connect(store) as db:
        db.execute("CREATE TRIGGER refuse_traces BEFORE INSERT ON trace_info "
                   "BEGIN SELECT RAISE(ABORT, 'traces are refused here'); END")
    done = run_cli(tmp_path, *TINY_DATASET_OVERRIDES, "chunker=none", "retriever=bm25,dense",
                   "tracking.background_traces_from=0")
    assert done.returncode == 1, done.stdout[-3000:] + done.stderr[-3000:]
    out = done.stdout + done.stderr
    for name in ("retriever=bm25", "retriever=dense"):
        assert f"NOT LOGGED the traces of {name}: the store {uri} refused them: " in out
    assert "NOT LOGGED the traces of 2 of 2 jobs" in done.stdout
    assert f"harness sync {tmp_path / 'sweep'}" in done.stdout
    client, children = children_of(tmp_path)
    assert len(children) == 2 and all(run.info.status == "FINISHED" and run.data.metrics for run in children)
    summaries = list((tmp_path / "sweep").glob("*/summary.json"))
    assert len(summaries) == 2  # each job ended before its traces were written: its summary has no traces error
    assert not any("traces_error" in json.loads(summary.read_text()) for summary in summaries)
    with sqlite3.connect(store) as db:
        db.execute("DROP TRIGGER refuse_traces")
    synced = subprocess.run([sys.executable, "-m", "harness", "sync", str(tmp_path / "sweep"),
                             f"tracking.tracking_uri={uri}"], cwd=tmp_path, capture_output=True, text=True,
                            timeout=600, env={**os.environ, "HF_HUB_OFFLINE": "1"})
    assert synced.returncode == 0, synced.stdout[-3000:] + synced.stderr[-3000:]
    for run in children:
        assert [t.info.tags[QUESTION_TAG] for t in traces_of(client, run)] == ["t1", "t2", "t3", "t4"]
