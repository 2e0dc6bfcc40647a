"""A synthetic set is logged to MLflow as the run's dataset input with its provenance as the profile."""

from __future__ import annotations

import json

from mlflow import MlflowClient

from harness.synth.provenance import synthetic_profile
from harness.tracking.mlflow_inputs import dataset_input, log_dataset_input
from tests.conftest import TINY


def write_set(tmp_path):
    path = tmp_path / "synth.jsonl"
    lines = [{"id": f"cloze_000{i}", "question": "q?", "provenance": {"kind": kind, "model": model,
                                                                     "prompt_sha256": "ab", "seed": 0}}
             for i, (kind, model) in enumerate([("cloze", None), ("llm", "gpt"), ("llm", "gpt")], start=1)]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    (tmp_path / "synth.jsonl.summary.json").write_text(json.dumps(
        {"kind": "llm", "asked": 3, "made": 3, "dataset": "demo", "seed": 0, "model": "gpt", "answer_model": "gpt",
         "filters": {"roundtrip": {"enabled": True, "removed": 2}}, "chunker": {"size": 128}}))
    return path


def test_the_profile_sums_up_every_lines_provenance_and_the_summary(tmp_path):
    profile = synthetic_profile(write_set(tmp_path))
    assert profile == {"synthetic_questions": 3, "kinds": {"cloze": 1, "llm": 2}, "models": {"None": 1, "gpt": 2},
                       "prompt_sha256": {"ab": 3}, "seeds": {"0": 3},
                       "summary": {"kind": "llm", "asked": 3, "made": 3, "dataset": "demo", "seed": 0, "model": "gpt",
                                   "answer_model": "gpt", "filters": {"roundtrip": {"enabled": True, "removed": 2}}}}
    assert synthetic_profile(TINY / "questions.jsonl") is None  # people's questions carry no provenance
    assert synthetic_profile(TINY / "docs") is None and synthetic_profile("squad") is None


def test_the_run_s_dataset_input_carries_the_profile(tmp_path):
    client = MlflowClient(f"sqlite:///{tmp_path / 'mlflow.db'}")
    run = client.create_run(client.create_experiment("synth"))
    path = write_set(tmp_path)
    log_dataset_input(client, run.info.run_id, dataset_input("questions_jsonl", "cd" * 32, str(path)))
    [logged] = client.get_run(run.info.run_id).inputs.dataset_inputs
    assert json.loads(logged.dataset.source)["uri"] == path.resolve().as_uri()
    assert json.loads(logged.dataset.profile) == synthetic_profile(path)
    assert dataset_input("tiny", "cd" * 32, str(TINY / "questions.jsonl")).dataset.profile is None
