"""The tracker seam against a real MLflow store in tmp_path: write a sweep, read it back."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from mlflow.tracking import MlflowClient

from harness.results.records import RunResult
from harness.results.table import read_table
from harness.tracking.base import NullTracker, ReportRun
from harness.tracking.verdicts.leaderboard import Leaderboard
from harness.tracking.mlflow.tracker import MLflowTracker
from harness.tracking.outcome import JobInfo, JobOutcome

ROWS = [{"question_id": "q1", "retrieval/mrr": 1.0}, {"question_id": "q2", "retrieval/mrr": 0.5}]


@pytest.fixture
def tracker(tmp_path):
    return MLflowTracker(f"sqlite:///{tmp_path / 'mlflow.db'}", "exp", str(tmp_path / "mlruns"), ui_hint=False)


def _job(tmp_path, tracker, name: str, parent: str | None, rows=ROWS, info: dict | None = None) -> str:
    result = RunResult(dataset="tiny", dataset_sha256="abc", rows=rows, metrics={"retrieval/mrr": 0.75}, info=info or {})
    folder = tmp_path / name
    result.write(folder)
    outcome = JobOutcome(status="FINISHED", output_dir=folder, result=result)
    info = JobInfo(name=name, choices={"retriever": "bm25"}, overrides=[name], params={"retriever.k1": 0.9},
                   config_yaml="retriever:\n  k1: 0.9\n")
    return tracker.log_job(outcome, info, parent)


def test_a_sweep_written_through_the_tracker_reads_back(tmp_path, tracker):
    parent = tracker.start_sweep("exp sweep", {"harness.role": "sweep"})
    first = _job(tmp_path, tracker, "retriever=bm25", parent)
    second = _job(tmp_path, tracker, "retriever=dense", parent, rows=ROWS[:1])
    tracker.end_sweep(parent, Leaderboard(columns=["run"], rows=[{"run": "retriever=bm25"}]).texts(), jobs=2, failed=0)

    client = MlflowClient(tracker.tracking_uri)
    assert client.get_run(first).data.tags["mlflow.parentRunId"] == parent
    assert client.get_run(parent).data.metrics["sweep/jobs_finished"] == 2

    by_id, by_name = tracker.resolve_run(first), tracker.resolve_run("retriever=dense")
    assert (by_id.run_id, by_id.name) == (first, "retriever=bm25")
    assert by_name.run_id == second and by_name.experiment_id == client.get_experiment_by_name("exp").experiment_id
    assert read_table(tracker.fetch_table(by_id, tmp_path / "fetched")) == ROWS
    assert tracker.fetch_config(by_id) == "retriever:\n  k1: 0.9\n"
    # the parent (a harness.role run) is not a configuration; each configuration once
    assert {r.name for r in tracker.finished_runs("exp")} == {"retriever=bm25", "retriever=dense"}


def test_a_runs_warnings_are_a_tag_of_its_run(tmp_path, tracker):
    warning = "app: none of the app's 2 contexts matched a document: the names they gave (...'s3://kb/42.pdf')"
    run_id = _job(tmp_path, tracker, "app=python", None, info={"warnings": [warning]})
    assert MlflowClient(tracker.tracking_uri).get_run(run_id).data.tags["harness.warnings"] == warning
    assert "harness.warnings" not in MlflowClient(tracker.tracking_uri).get_run(
        _job(tmp_path, tracker, "app=http", None)).data.tags


def test_a_report_is_logged_as_its_own_run_beside_the_run_it_read(tmp_path, tracker):
    source = tracker.resolve_run(_job(tmp_path, tracker, "retriever=bm25", None))
    folder = tmp_path / "report"
    folder.mkdir()
    (folder / "report.csv").write_text("a,b\n1,2\n")
    logged = tracker.log_report(ReportRun(name="compare: 1 vs x", role="comparison", folder=folder,
                                          tags={"harness.source_run": source.run_id}, metrics={"m@1": 0.25},
                                          params={"k": 3}, experiment_id=source.experiment_id))
    run = MlflowClient(tracker.tracking_uri).get_run(logged.run_id)
    assert run.info.status == "FINISHED" and run.info.experiment_id == source.experiment_id
    assert run.data.tags["harness.role"] == "comparison" and run.data.tags["harness.source_run"] == source.run_id
    assert run.data.metrics == {"m_1": 0.25} and run.data.params == {"k": "3"}
    assert [a.path for a in MlflowClient(tracker.tracking_uri).list_artifacts(logged.run_id)] == ["report.csv"]
    assert [r.name for r in tracker.finished_runs("exp")] == ["retriever=bm25"]  # reports are not configurations


def test_a_report_on_a_local_folder_goes_to_the_named_experiment(tmp_path, tracker):
    folder = tmp_path / "report"
    folder.mkdir()
    logged = tracker.log_report(ReportRun(name="meta-eval: run", role="meta_eval", folder=folder,
                                          experiment_name="people"))
    assert logged.experiment_id == MlflowClient(tracker.tracking_uri).get_experiment_by_name("people").experiment_id


def test_unknown_runs_and_tables_are_lookup_errors(tmp_path, tracker):
    with pytest.raises(LookupError, match="no run with id or name 'nope'"):
        tracker.resolve_run("nope")
    with pytest.raises(LookupError, match="no experiment named 'other'"):
        tracker.finished_runs("other")
    parent = tracker.resolve_run(tracker.start_sweep("bare", {}))
    with pytest.raises(LookupError, match=f"run bare \\({parent.run_id}\\) has no per_question.jsonl"):
        tracker.fetch_table(parent, tmp_path)
    assert tracker.fetch_config(parent) is None


def test_tracking_none_records_nothing_and_finds_nothing(tmp_path):
    none = NullTracker()
    assert none.log_report(ReportRun(name="r", role="comparison", folder=tmp_path)) is None
    with pytest.raises(LookupError, match="tracking=none .* cannot look up run 'x'; give a run folder"):
        none.resolve_run("x")
    with pytest.raises(LookupError, match="cannot list the runs of experiment 'e'"):
        none.finished_runs("e")


def test_names_resolve_within_an_experiment_and_sweep_files_come_from_the_parent(tmp_path, tracker):
    parent = tracker.start_sweep("exp sweep", {"harness.role": "sweep"})
    (tmp_path / "settings").mkdir()
    (tmp_path / "settings" / "stats_settings.json").write_text('{"test": "wilcoxon"}')
    tracker.log_files(parent, [tmp_path / "settings" / "stats_settings.json"])
    job = tracker.resolve_run(_job(tmp_path, tracker, "retriever=bm25", parent))
    assert job.parent_id == parent
    assert tracker.resolve_run("retriever=bm25", "exp") == job
    assert tracker.resolve_run(job.run_id[:8], "exp").run_id == job.run_id
    with pytest.raises(LookupError, match="no experiment 'elsewhere'"):
        tracker.resolve_run("retriever=bm25", "elsewhere")
    assert tracker.fetch_sweep_file([job], "stats_settings.json") == ('{"test": "wilcoxon"}', parent)
    assert tracker.fetch_sweep_file([job], "absent.json") == (None, None)


def test_a_jobs_table_and_tags_equal_what_mlflows_own_calls_write(tmp_path, tracker):
    """_record_job writes the per-question table itself and sends its tags in the job's one batch:
    the file and the mlflow.loggedArtifacts tag are MLflow's log_table's, fresh and appended to (a
    race's next round), and the dataset tags arrive as set_tag would set them."""
    rows = [{"question_id": "q1", "retrieval/mrr": 1.0, "chunks": ["a", "b"], "answer": None},
            {"question_id": "q2", "retrieval/mrr": 0.5, "chunks": ["c"], "answer": "x"}]
    more = [*rows, {"question_id": "q3", "retrieval/mrr": 0.25, "chunks": [], "answer": "y"}]
    client = MlflowClient(tracker.tracking_uri)
    # the tracker's own folder for artifacts: created here without one, they would go to ./mlruns
    experiment = client.get_experiment(client.create_experiment("exp", (tmp_path / "mlruns").as_uri()))
    reference = client.create_run(experiment.experiment_id).info.run_id
    for table in (rows, more[2:]):  # MLflow's own: the table, then only the questions it lacks
        client.log_table(reference, data=pd.DataFrame([{k: ("|".join(v) if isinstance(v, list) else v)
                                                        for k, v in row.items()} for row in table]),
                         artifact_file="per_question_table.json")

    run = None
    for table in (rows, more):  # a race: the same run logged again on a longer prefix
        result = RunResult(dataset="tiny", dataset_sha256="abc", rows=table, metrics={"retrieval/mrr": 0.75})
        result.write(tmp_path / "job")
        info = JobInfo(name="job", choices={"retriever": "bm25"}, overrides=[], params={"retriever.k1": 0.9},
                       config_yaml="retriever: {}\n")
        run = tracker.log_job(JobOutcome(status="FINISHED", output_dir=tmp_path / "job", result=result), info, None, run)

    def table(run_id):
        return Path(client.download_artifacts(run_id, "per_question_table.json", str(tmp_path / run_id))).read_text()

    got, expected = client.get_run(run).data, client.get_run(reference).data
    assert table(run) == table(reference)
    assert got.tags["mlflow.loggedArtifacts"] == expected.tags["mlflow.loggedArtifacts"]
    assert (got.tags["dataset.name"], got.tags["dataset.sha256"]) == ("tiny", "abc")
    assert got.params == {"choice.retriever": "bm25", "retriever.k1": "0.9"} and got.metrics["retrieval/mrr"] == 0.75
