"""The question set as an MLflow evaluation dataset on a real SQLite store: created once for two
jobs of the same dataset, its records present, linked to the experiment and to both runs; a later
job holding more (gold answers, more questions) merges them in; a file store is named in one line."""

from __future__ import annotations

import logging

import pytest
from mlflow.tracking import MlflowClient

from harness.results.records import RunResult
from harness.tracking.mlflow.eval_dataset import SHA_TAG
from harness.tracking.mlflow.tracker import MLflowTracker
from harness.tracking.outcome import JobInfo, JobOutcome
from tests.tracking.contract_traces import global_tracking_uri

SHA = "5f" * 32


def rows(n: int, answers: bool) -> list[dict]:
    out = []
    for i in range(n):
        row = {"question_id": f"q{i}", "question": f"What is {i}?", "gold_doc_ids": [f"d{i}", "shared"],
               "retrieval/mrr": 1.0 / (i + 1)}
        if answers:
            row.update(answer=f"{i}", gold_answers=[f"{i}"] if i else ["zero", "0"])
        out.append(row)
    return out


def log(tracker, tmp_path, name: str, table: list[dict]) -> str:
    result = RunResult(dataset="tiny", dataset_sha256=SHA, rows=table, metrics={}, dataset_source=str(tmp_path))
    result.write(tmp_path / name)
    return tracker.log_job(JobOutcome(status="FINISHED", output_dir=tmp_path / name, result=result),
                           JobInfo(name=name, choices={}, overrides=[], params={}, config_yaml=""), None)


def test_one_dataset_per_hash_with_its_records_linked_to_every_run(tmp_path, monkeypatch):
    uri = f"sqlite:///{tmp_path / 'mlflow.db'}"
    tracker = MLflowTracker(uri, "eval", str(tmp_path / "mlruns"), ui_hint=False)
    client = MlflowClient(uri)
    first = log(tracker, tmp_path, "retriever=bm25", rows(3, answers=False))
    second = log(tracker, tmp_path, "retriever=dense", rows(3, answers=False))
    [dataset] = client.search_datasets(filter_string=f"tags.{SHA_TAG} = '{SHA}'")
    assert dataset.name == f"tiny-{SHA[:12]}" and dataset.tags["harness_records"] == "3"
    experiment = client.get_experiment_by_name("eval").experiment_id
    with global_tracking_uri(uri, monkeypatch):  # a dataset reads its experiments from that store
        assert dataset.experiment_ids == [experiment]
    for run_id in (first, second):
        inputs = client.get_run(run_id).inputs.dataset_inputs
        assert dataset.name in [i.dataset.name for i in inputs]

    # a later job with the gold answers and one more question adds them, to the same dataset
    third = log(tracker, tmp_path, "retriever=hybrid", rows(4, answers=True))
    [again] = client.search_datasets(filter_string=f"tags.{SHA_TAG} = '{SHA}'")
    assert again.dataset_id == dataset.dataset_id and again.tags["harness_records_with_answers"] == "4"
    assert dataset.name in [i.dataset.name for i in client.get_run(third).inputs.dataset_inputs]
    with global_tracking_uri(uri, monkeypatch):
        frame = client.get_dataset(dataset.dataset_id).to_df()
        now = client.get_dataset(dataset.dataset_id)._to_mlflow_entity()
    # each run's input is the dataset as that run left it (the entity is kept per version of it)
    logged = {run_id: [i.dataset for i in client.get_run(run_id).inputs.dataset_inputs if i.dataset.name == dataset.name]
              for run_id in (first, second, third)}
    assert [(d.digest, d.profile) for d in logged[third]] == [(now.digest, now.profile)]
    assert logged[first][0].profile == logged[second][0].profile != now.profile
    by_id = {r["inputs"]["question_id"]: r for _, r in frame.iterrows()}
    assert sorted(by_id) == ["q0", "q1", "q2", "q3"]
    assert by_id["q1"]["inputs"] == {"question": "What is 1?", "question_id": "q1"}
    assert by_id["q1"]["expectations"] == {"expected_response": "1",
                                           "expected_retrieved_context": [{"doc_uri": "d1"}, {"doc_uri": "shared"}]}
    assert by_id["q0"]["expectations"]["expected_response"] == ["zero", "0"]


def test_a_store_without_evaluation_datasets_is_named_once_and_the_runs_are_logged(tmp_path, monkeypatch, caplog):
    monkeypatch.setenv("MLFLOW_ALLOW_FILE_STORE", "true")
    uri = (tmp_path / "mlruns").as_uri()
    tracker = MLflowTracker(uri, "eval", ui_hint=False)
    with caplog.at_level(logging.WARNING, logger="harness.tracking.mlflow.eval_dataset"):
        runs = [log(tracker, tmp_path, f"job{i}", rows(2, answers=True)) for i in range(2)]
    lines = [r.getMessage() for r in caplog.records if r.name == "harness.tracking.mlflow.eval_dataset"]
    assert lines == [f"MLflow at {uri} holds no evaluation datasets, so the question set is not on its Datasets "
                     "page (a SQL store such as sqlite:///mlflow.db does)"]
    for run_id in runs:
        assert MlflowClient(uri).get_run(run_id).info.status == "FINISHED"


@pytest.fixture(autouse=True)
def _forget_told_stores(monkeypatch):
    monkeypatch.setattr("harness.tracking.mlflow.eval_dataset._told", set())
