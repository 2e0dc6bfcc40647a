"""dataset=mlflow_eval: an MLflow evaluation dataset read by name from a real SQLite store, its
records' inputs and expectations as a question file's; a missing name and a bad record named."""

from __future__ import annotations

import pytest
from hydra.utils import instantiate
from mlflow.tracking import MlflowClient

from harness.data.records import DatasetError
from harness.tracking.mlflow.question_source import load_evaluation_dataset
from tests.tracking.contract_traces import global_tracking_uri

PARIS = "Paris is the capital and largest city of France."


@pytest.fixture
def store(tmp_path, monkeypatch):
    uri = f"sqlite:///{tmp_path / 'mlflow.db'}"
    client = MlflowClient(uri)
    experiment = client.create_experiment("questions", artifact_location=str(tmp_path / "mlruns"))
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "france.md").write_text(f"# France\n\n{PARIS}\n")
    (tmp_path / "docs" / "germany.md").write_text("# Germany\n\nBerlin is the capital of Germany.\n")
    with global_tracking_uri(uri, monkeypatch):
        dataset = client.create_dataset(name="capitals", experiment_id=[experiment])
        dataset.merge_records([
            {"inputs": {"question": "Capital of France?"},
             "expectations": {"expected_response": "Paris",
                              "expected_retrieved_context": [{"doc_uri": "x", "content": PARIS}]}},
            {"inputs": {"question": "Capital of Germany?", "question_id": "de"},
             "expectations": {"expected_response": "Berlin", "expected_retrieved_context": [{"doc_uri": "germany"}]}},
        ])
    return uri, tmp_path


def test_an_evaluation_dataset_by_name(store):
    uri, folder = store
    dataset = load_evaluation_dataset("mine", "capitals", str(folder / "docs"), uri)
    questions = {q.text: q for q in dataset.questions}
    france, germany = questions["Capital of France?"], questions["Capital of Germany?"]
    assert (france.answers, france.relevant, france.id.startswith("q-")) == (("Paris",), {"france": 1}, True)
    assert (germany.id, germany.answers, germany.relevant) == ("de", ("Berlin",), {"germany": 1})
    assert dataset.source == f"{uri}#dataset=capitals" and len(dataset.sha256) == 64


def test_the_option_composes_and_a_missing_name_is_named(compose, store):
    uri, folder = store
    cfg = compose(["dataset=mlflow_eval", "dataset.evaluation_dataset=nowhere", f"dataset.documents={folder / 'docs'}",
                   f"tracking.tracking_uri={uri}"])
    with pytest.raises(Exception, match=f"no MLflow evaluation dataset named 'nowhere' in {uri}"):
        instantiate(cfg.dataset)
    # no record has the mapped column: one message naming the columns found and the key to set
    with pytest.raises(DatasetError, match=r"mlflow-dataset:capitals: no record has field 'question' \(looked for "
                                           r"'inputs.text'\); the columns found are .*'inputs'.*dataset.fields.question="):
        load_evaluation_dataset("mine", "capitals", str(folder / "docs"), uri, fields={"question": "inputs.text"})
