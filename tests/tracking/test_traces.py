"""Question traces: built from a constructed RunResult (rows + stage records), written into a real
SQLite store and read back through MLflow's own client; each question once per run."""

from __future__ import annotations

import json
from dataclasses import asdict

import pytest
from mlflow.tracking import MlflowClient

from harness.results.records import RunResult
from harness.results.stage_records import SpanRecord, StageRecord, StageRecords
from harness.tracking.mlflow.trace_writer import TraceJob, TraceWriter
from harness.tracking.mlflow.traces import QUESTION_TAG, build_trace, trace_id_for
from harness.tracking.mlflow.tracker import MLflowTracker
from harness.tracking.outcome import JobInfo, JobOutcome

T0 = 1_700_000_000.0


def row(qid: str, answered: bool = True) -> dict:
    base = {"question_id": qid, "question": f"what is {qid}?", "gold_doc_ids": ["d1"], "gold_rank": 1,
            "retrieved_chunk_ids": ["d1#0", "d2#0"], "retrieved_doc_ids": ["d1", "d2"], "retrieved_scores": [2.0, 1.0],
            "retrieval/ndcg_at_5": 1.0, "retrieval/mrr": 1.0}
    if answered:
        base.update({"answer": f"{qid} is x", "answer_error": None, "gold_answers": ["x"], "expected_answer": "x",
                     "answer/f1": 0.5, "judge/likelihood_correctness": None, "judge/answer_score": 8.0})
    return base


def stages(qids: list[str], answered: set[str]) -> StageRecords:
    search = StageRecord("search", T0, T0 + 1, {q: [SpanRecord(
        "search", "retrieval", T0, T0 + 1, inputs={"query": f"what is {q}?"},
        documents=[("d1#0", 2.0), ("d2#0", 1.0)])] for q in qids})
    generate = StageRecord("generate", T0 + 1, T0 + 3, {q: [SpanRecord(
        "generate with_context", "generation", T0 + 1 + i, T0 + 2 + i, inputs={"messages": [{"role": "user",
                                                                                             "content": "p"}]},
        outputs=f"{q} is x", usage={"input_tokens": 10, "output_tokens": 3}, attributes={"model": "m"},
        events=[{"name": "first token", "time": T0 + 1.2 + i, "attributes": {}}])] for i, q in enumerate(qids)
        if q in answered})
    judge = StageRecord("judge", T0 + 3, T0 + 4, {q: [
        SpanRecord("judge likelihood_correctness/with_context", "judging", T0 + 3, T0 + 4, error="judge error: timeout",
                   attributes={"judge": "local:smollm2", "values": {"likelihood_correctness": None},
                               "reply": None}),
        SpanRecord("judge answer_score/with_context", "judging", T0 + 3, T0 + 4,
                   outputs={"reply": "Score: 8", "score": 8.0},
                   attributes={"judge": "api:gpt-x", "values": {"answer_score": 8.0}, "reply": "Score: 8"})]
        for q in qids if q in answered})
    return StageRecords(stages=[search, generate, judge],
                        passages={"d1#0": {"doc_id": "d1", "title": "One", "text": "first passage"},
                                  "d2#0": {"doc_id": "d2", "title": "", "text": "second passage"}},
                        expected={q: {"response": "x", "sources": ["d1"]} for q in qids})


def test_a_trace_holds_the_spans_documents_answer_and_every_metric_as_an_assessment():
    built = build_trace(row("q1"), stages(["q1"], {"q1"}), "run1", "0", "retriever=bm25")
    assert built.info.trace_id == trace_id_for("run1", "q1") and built.info.tags[QUESTION_TAG] == "q1"
    assert built.info.trace_metadata["mlflow.sourceRun"] == "run1"
    root, search, generate, failed_judge, judge = built.spans
    assert root.parent_id is None and root.inputs == {"question": "what is q1?", "question_id": "q1"}
    assert root.outputs == "q1 is x"
    assert (root.start_time_ns, root.end_time_ns) == (int(T0 * 1e9), int((T0 + 4) * 1e9))
    assert {s.parent_id for s in built.spans[1:]} == {root.span_id}
    assert search.span_type == "RETRIEVER"
    assert [(d["id"], d["page_content"], d["metadata"]["doc_id"], d["metadata"]["score"]) for d in search.outputs] == [
        ("d1#0", "first passage", "d1", 2.0), ("d2#0", "second passage", "d2", 1.0)]
    assert generate.span_type == "LLM" and generate.outputs == "q1 is x"
    assert generate.attributes["mlflow.chat.tokenUsage"] == {"input_tokens": 10, "output_tokens": 3, "total_tokens": 13}
    assert [e.name for e in generate.events] == ["first token"]
    assert failed_judge.status.status_code == "ERROR" and failed_judge.status.description == "judge error: timeout"
    assert judge.outputs["reply"] == "Score: 8"

    by_name = {a.name: a for a in built.info.assessments}
    assert by_name["expected_response"].value == "x" and by_name["expected_sources"].value == ["d1"]
    metrics = {k for k in row("q1") if "/" in k}
    assert metrics <= set(by_name)  # every metric of the row, by its key
    assert by_name["retrieval/ndcg_at_5"].source.source_type == "CODE" and by_name["retrieval/ndcg_at_5"].value == 1.0
    scored = by_name["judge/answer_score"]
    assert (scored.source.source_type, scored.source.source_id, scored.value, scored.rationale) == (
        "LLM_JUDGE", "api:gpt-x", 8.0, "Score: 8")
    missing = by_name["judge/likelihood_correctness"]
    assert missing.value is None and missing.error.error_message == "judge error: timeout"
    assert missing.source.source_type == "LLM_JUDGE"


def test_an_unanswered_question_shows_its_top_passage_and_an_older_result_what_its_row_holds():
    built = build_trace(row("q2", answered=False), stages(["q2"], set()), "run1", "0", "n")
    assert built.spans[0].outputs == "first passage" and [s.name for s in built.spans] == ["n", "search"]
    bare = build_trace(row("q2", answered=False), None, "run1", "0", "n")  # no stage records (an older job)
    assert bare.spans[0].outputs == "d1#0" and len(bare.spans) == 1
    assert {a.name for a in bare.info.assessments} == {"expected_sources", "retrieval/ndcg_at_5", "retrieval/mrr"}


def test_a_failed_question_is_a_trace_in_error_with_its_reason():
    failed = {**row("q3", answered=False), "answer": "", "answer_error": "RuntimeError: HTTP 500 after 3 tries"}
    built = build_trace(failed, stages(["q3"], set()), "run1", "0", "n")
    root = built.spans[0]
    assert built.info.state.value == "ERROR" and root.status.status_code == "ERROR"
    assert root.status.description == "RuntimeError: HTTP 500 after 3 tries"
    assert build_trace(row("q1"), stages(["q1"], {"q1"}), "run1", "0", "n").info.state.value == "OK"


def test_the_writer_writes_each_question_once_and_fills_what_a_run_lacks(tmp_path):
    uri = f"sqlite:///{tmp_path / 'mlflow.db'}"
    tracker = MLflowTracker(uri, "exp", str(tmp_path / "mlruns"), ui_hint=False)
    records = stages(["q1", "q2", "q3"], {"q1"})
    result = RunResult(dataset="tiny", dataset_sha256="abc", rows=[row("q1"), row("q2", False)], metrics={},
                       stages=records)
    result.write(tmp_path / "job")
    info = JobInfo(name="retriever=bm25", choices={}, overrides=[], params={}, config_yaml="")
    run_id = tracker.log_job(JobOutcome(status="FINISHED", output_dir=tmp_path / "job", result=result), info, None)
    assert tracker.flush() == []
    client = MlflowClient(uri)
    experiment = client.get_experiment_by_name("exp").experiment_id

    def traced() -> list[str]:
        found = client.search_traces(locations=[experiment], run_id=run_id, max_results=100, include_spans=False)
        return sorted(t.info.tags[QUESTION_TAG] for t in found)

    assert traced() == ["q1", "q2"]
    assert tracker.log_traces(run_id, result, "retriever=bm25") == 0  # how many it wrote (what sync can report)
    writer = TraceWriter(uri)
    longer = [row("q1"), row("q2", False), row("q3", False)]  # a race's next round: one question more
    assert writer.write(TraceJob(experiment, run_id, "retriever=bm25", longer, records)) == 1
    assert writer.write(TraceJob(experiment, run_id, "retriever=bm25", longer, records)) == 0  # a resume, a sync
    assert traced() == ["q1", "q2", "q3"]
    trace = client.get_trace(trace_id_for(run_id, "q1"))
    assert len(trace.info.assessments) == len({a.name for a in trace.info.assessments})  # none twice
    assert [s.name for s in trace.data.spans][:2] == ["retriever=bm25", "search"]
    assert writer.flush() == []


def read_only(uri: str) -> str:
    """The store opened read-only (SQLite's own URI mode; chmod would not stop a test run as root)."""
    return f"sqlite:///file:{uri.removeprefix('sqlite:///')}?mode=ro&uri=true"


def test_a_store_that_refuses_the_traces_leaves_the_run_logged_and_says_why_in_one_line(tmp_path, monkeypatch):
    # MLflow makes the read-only URI's folder ("file:/tmp/...") relative to the working folder: not the checkout's
    monkeypatch.chdir(tmp_path)
    uri = f"sqlite:///{tmp_path / 'mlflow.db'}"
    tracker = MLflowTracker(uri, "exp", str(tmp_path / "mlruns"), ui_hint=False, traces="none")
    info = JobInfo(name="retriever=bm25", choices={}, overrides=[], params={}, config_yaml="")
    result = RunResult(dataset="tiny", dataset_sha256="abc", rows=[row("q1")], metrics={})
    result.write(tmp_path / "job")
    run_id = tracker.log_job(JobOutcome(status="FINISHED", output_dir=tmp_path / "job", result=result), info, None)
    writer = TraceWriter(read_only(uri))
    assert writer.write(TraceJob(tracker._experiment(), run_id, "retriever=bm25", [row("q1")], None)) == 0
    (line,) = writer.flush()
    assert line == (f"NOT LOGGED the traces of retriever=bm25: the store {read_only(uri)} refused them: "
                    "(sqlite3.OperationalError) attempt to write a readonly database")
    assert writer.flush() == []


@pytest.mark.parametrize("mode, expected", [("all", ["q1", "q2"]), ("answered", ["q1"]), ("none", []),
                                            ("auto", ["q1", "q2"])])
def test_tracking_traces_chooses_the_questions(mode, expected):
    from harness.tracking.trace_policy import TracePolicy

    assert [r["question_id"] for r in TracePolicy(mode).select([row("q1"), row("q2", False)])] == expected


def test_the_stage_records_come_back_from_the_job_folder_as_they_were(tmp_path):
    records = stages(["q1", "q2"], {"q1"})
    RunResult(dataset="tiny", dataset_sha256="abc", rows=[row("q1"), row("q2", False)], metrics={},
              stages=records).write(tmp_path)
    assert RunResult.read(tmp_path).stages == records
    assert "stages" not in (tmp_path / "metrics.json").read_text()
    assert (tmp_path / "stages.json").read_text() == json.dumps(asdict(records), ensure_ascii=False)


def test_a_sweep_writes_a_small_jobs_traces_itself_and_a_large_jobs_in_the_writer_process(tmp_path):
    uri = f"sqlite:///{tmp_path / 'mlflow.db'}"
    tracker = MLflowTracker(uri, "exp", str(tmp_path / "mlruns"), ui_hint=False, traces="none")
    experiment = tracker._experiment()
    info = JobInfo(name="retriever=bm25", choices={}, overrides=[], params={}, config_yaml="")
    client = MlflowClient(uri)

    def job(qids: list[str]) -> TraceJob:
        result = RunResult(dataset="tiny", dataset_sha256="abc", rows=[row(q) for q in qids], metrics={})
        result.write(tmp_path / "job")
        run_id = tracker.log_job(JobOutcome(status="FINISHED", output_dir=tmp_path / "job", result=result), info, None)
        return TraceJob(experiment, run_id, "retriever=bm25", result.rows, stages(qids, set(qids)))

    def traced(run_id: str) -> int:
        return len(client.search_traces(locations=[experiment], run_id=run_id, max_results=100, include_spans=False))

    writer = TraceWriter(uri)
    small = job(["q1", "q2"])
    writer.submit(small, background_from=3)  # fewer than 3 traces: written here, before submit returns
    assert writer._pool is None and traced(small.run_id) == 2
    large = job(["q1", "q2", "q3"])
    writer.submit(large, background_from=3)
    assert writer._pool is not None  # the writer process, which then takes every later job, small ones too
    later = job(["q4"])
    writer.submit(later, background_from=3)
    assert writer.flush() == [] and [traced(large.run_id), traced(later.run_id)] == [3, 1]
    assert len(writer._pool._processes) == 1
    writer._pool.shutdown()


def test_a_trace_lasts_its_questions_own_time_with_its_share_of_each_batch():
    from harness.stages.stage import note_batches

    qids = ["q1", "q2", "q3"]
    # the search question by question (1 s each), the answers in one 6 s batch, every judgement in one 3 s batch
    searched = {q: [SpanRecord("search", "retrieval", T0 + i, T0 + i + 1, documents=[("d1#0", 2.0)])]
                for i, q in enumerate(qids)}
    answered = {q: [SpanRecord("generate with_context", "generation", T0 + 3, T0 + 9, outputs="x",
                               events=[{"name": "first token", "time": T0 + 3.5, "attributes": {}}])] for q in qids}
    judged = {q: [SpanRecord("judge answer_score/with_context", "judging", T0 + 9, T0 + 12,
                             attributes={"judge": "j", "values": {"answer_score": 8.0}, "reply": "8"})] for q in qids}
    for spans in (searched, answered, judged):
        note_batches(spans)
    assert "batch_size" not in searched["q2"][0].attributes
    assert answered["q2"][0].attributes == {"batch_size": 3, "batch_seconds": 6.0}
    records = StageRecords(stages=[StageRecord("search", T0, T0 + 3, searched),
                                   StageRecord("generate", T0 + 3, T0 + 9, answered),
                                   StageRecord("judge", T0 + 9, T0 + 12, judged)],
                           passages={"d1#0": {"doc_id": "d1", "text": "p"}})
    built = build_trace(row("q2"), records, "run1", "0", "n")
    root, search, generate, judge = built.spans
    seconds = [(s.end_time_ns - s.start_time_ns) / 1e9 for s in built.spans]
    assert seconds == pytest.approx([1 + 2 + 1, 1, 2, 1])  # its search, a third of each batch
    assert root.start_time_ns == search.start_time_ns == int((T0 + 1) * 1e9)  # its own search's start
    assert (search.end_time_ns, generate.end_time_ns) == (generate.start_time_ns, judge.start_time_ns)
    assert root.end_time_ns == judge.end_time_ns and built.info.execution_duration == 4000
    assert generate.attributes["batch_size"] == 3 and generate.attributes["batch_seconds"] == 6.0
    assert generate.attributes["batch_share_seconds"] == pytest.approx(2.0)
    assert generate.events[0].timestamp == generate.start_time_ns + int(0.5e9)  # moved with its span


def test_only_the_reported_metrics_and_the_judges_scores_are_assessments_the_rest_one_root_attribute():
    from harness.tracking.mlflow.traces import VALUES_ATTRIBUTE
    from harness.tracking.trace_policy import TraceContent

    records = stages(["q1"], {"q1"})
    records.passages["d1#0"]["text"] = "a long first passage"
    built = build_trace(row("q1"), records, "run1", "0", "n", TraceContent(("retrieval/mrr",), passage_chars=6))
    assert sorted(a.name for a in built.info.assessments) == [
        "expected_response", "expected_sources", "judge/answer_score", "judge/likelihood_correctness",
        "retrieval/mrr"]  # the reported metric, each judge's score (its reply the rationale), the gold
    assert {a.name: a.rationale for a in built.info.assessments}["judge/answer_score"] == "Score: 8"
    root, search = built.spans[:2]
    assert root.attributes[VALUES_ATTRIBUTE] == {"retrieval/ndcg_at_5": 1.0, "answer/f1": 0.5}
    assert [(d["page_content"], d["metadata"].get("truncated")) for d in search.outputs] == [
        ("a long", True), ("second", True)]
    assert records.passages["d1#0"]["text"] == "a long first passage"  # the records keep it whole
    whole = build_trace(row("q1"), records, "run1", "0", "n")  # null: every metric, texts whole
    assert VALUES_ATTRIBUTE not in whole.spans[0].attributes
    assert whole.spans[1].outputs[0]["page_content"] == "a long first passage"


def test_a_workers_job_hands_its_traces_to_the_sweeps_process_which_writes_them(tmp_path, monkeypatch):
    """In a harness launcher's worker (no sweep open in its process) the traces are not written when
    the job ends: they go with its answer, and the sweep's process writes them (handoff)."""
    from harness.tracking.mlflow.trace_writer import log_traces
    from harness.tracking.sweep import handoff
    from harness.tracking.trace_policy import TraceContent

    monkeypatch.setattr(handoff, "_LEFT", None)
    uri = f"sqlite:///{tmp_path / 'mlflow.db'}"
    tracker = MLflowTracker(uri, "exp", str(tmp_path / "mlruns"), ui_hint=False, traces="none")
    info = JobInfo(name="retriever=bm25", choices={}, overrides=[], params={}, config_yaml="")
    result = RunResult(dataset="tiny", dataset_sha256="abc", rows=[row("q1"), row("q2", False)], metrics={},
                       stages=stages(["q1", "q2"], {"q1"}))
    result.write(tmp_path / "job")
    run_id = tracker.log_job(JobOutcome(status="FINISHED", output_dir=tmp_path / "job", result=result), info, None)
    experiment = tracker._experiment()
    client = MlflowClient(uri)

    def traced() -> list[str]:
        found = client.search_traces(locations=[experiment], run_id=run_id, max_results=100, include_spans=False)
        return sorted(t.info.tags[QUESTION_TAG] for t in found)

    handoff.accept()
    assert log_traces(uri, result.rows, TraceContent(), experiment, run_id, result, "retriever=bm25",
                      tracker._retrying, background_from=10) is None
    assert traced() == []  # not written by the job
    left = handoff.taken()
    assert len(left) == 1
    handoff.run(left)  # the sweep's process: fewer than background_from, no writer process yet: written at once
    assert traced() == ["q1", "q2"] and tracker.flush() == [] and handoff.failures() == []


@pytest.mark.parametrize("traces, questions, started", [("auto", 3, True), ("all", 5, True), ("auto", 2, False),
                                                         ("answered", 5, False), ("none", 5, False)])
def test_a_sweep_of_large_jobs_starts_the_writer_process_before_its_first_job(tmp_path, traces, questions, started):
    """The writer process starts with the sweep where its jobs will use it (each with at least
    background_traces_from traces; `answered` traces an unknown share), then writes the first job."""
    from harness.tracking.mlflow import trace_writer

    uri = f"sqlite:///{tmp_path / 'mlflow.db'}"
    tracker = MLflowTracker(uri, "exp", str(tmp_path / "mlruns"), ui_hint=False, traces=traces,
                            background_traces_from=3)
    tracker.expect_traces(questions)
    writer = trace_writer.writer_for(uri)
    try:
        assert (writer._pool is not None) == started
        if started:
            info = JobInfo(name="retriever=bm25", choices={}, overrides=[], params={}, config_yaml="")
            qids = ["q1", "q2", "q3"]
            result = RunResult(dataset="tiny", dataset_sha256="abc", rows=[row(q) for q in qids], metrics={},
                               stages=stages(qids, set(qids)))
            result.write(tmp_path / "job")
            logger = MLflowTracker(uri, "exp", str(tmp_path / "mlruns"), ui_hint=False, traces="none")
            run_id = logger.log_job(JobOutcome(status="FINISHED", output_dir=tmp_path / "job", result=result),
                                    info, None)
            writer.submit(TraceJob(tracker._experiment(), run_id, "retriever=bm25", result.rows, result.stages), 3)
            assert writer.flush() == []
            found = MlflowClient(uri).search_traces(locations=[tracker._experiment()], run_id=run_id, max_results=10)
            assert sorted(t.info.tags[QUESTION_TAG] for t in found) == qids
            assert len(writer._pool._processes) == 1
    finally:
        if writer._pool is not None:
            writer._pool.shutdown()
        trace_writer._WRITERS.pop(uri, None)
