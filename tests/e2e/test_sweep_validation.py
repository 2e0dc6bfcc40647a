"""Issue 15.5: mistakes are errors before the parent run exists; a sweep that cannot start
leaves no run, no sweep folder and exits 2."""

from __future__ import annotations

import json

import pytest

from tests.conftest import TINY, TINY_DATASET_OVERRIDES
from tests.e2e.test_sweep import run_cli, runs_of

pytestmark = pytest.mark.slow


def assert_not_started(tmp_path, done) -> str:
    assert done.returncode == 2, done.stderr[-3000:]
    assert runs_of(tmp_path)[1] == []
    assert not (tmp_path / "sweep").exists() and not (tmp_path / "run").exists()
    return done.stderr


def test_an_unknown_experiment_is_an_error_naming_the_available_ones(tmp_path):
    done = run_cli(tmp_path, *TINY_DATASET_OVERRIDES, "experiment=demo_swep", multirun=False)
    assert "unknown experiment 'demo_swep'; available: 2wiki_flashrag, asqa_flashrag, demo_sweep, hotpotqa_flashrag, musique_flashrag, nq_flashrag, optuna_demo, popqa_flashrag, scifact, triviaqa_flashrag" in assert_not_started(tmp_path, done)


def test_every_job_s_arguments_are_checked_before_the_sweep_starts(tmp_path):
    done = run_cli(tmp_path, *TINY_DATASET_OVERRIDES, "chunker=recursive", "chunker.overlap=50,5000",
                   "retriever.top_k=0,5", "generator=predictions", f"generator.path={tmp_path / 'none.jsonl'}",
                   "generation.sample=0")
    stderr = assert_not_started(tmp_path, done)
    assert "4 of 4 job(s) cannot run" in stderr
    assert ("job 2 (chunker.overlap=5000 retriever.top_k=0): generator: DatasetError: predictions file not found: "
            f"{tmp_path / 'none.jsonl'}") in stderr
    for reason in ("chunker: ValueError: overlap must be >= 0 and < size (800), got 5000",
                   "retriever: ValueError: top_k must be >= 1, got 0",
                   "generation: ValueError: generation.sample must be >= 1 or null, got 0"):
        assert reason in stderr


def test_a_single_run_with_wrong_arguments_does_not_start_either(tmp_path):
    done = run_cli(tmp_path, *TINY_DATASET_OVERRIDES, "chunker=recursive", "chunker.overlap=5000", "retriever=bm25",
                   multirun=False)
    stderr = assert_not_started(tmp_path, done)
    assert "harness: run not started, its config is invalid:" in stderr
    assert "chunker: ValueError: overlap must be >= 0 and < size (800), got 5000" in stderr
    done = run_cli(tmp_path, *TINY_DATASET_OVERRIDES, "generator=predictions",
                   f"generator.path={tmp_path / 'missing.jsonl'}", multirun=False)
    assert f"generator: DatasetError: predictions file not found: {tmp_path / 'missing.jsonl'}" in \
        assert_not_started(tmp_path, done)


def test_a_dataset_without_its_paths_stops_the_sweep(tmp_path):
    done = run_cli(tmp_path, "dataset=questions_jsonl", "retriever=bm25,dense")
    assert "dataset: MissingMandatoryValue" in assert_not_started(tmp_path, done)


def test_a_malformed_dataset_in_one_job_stops_the_sweep(tmp_path):
    broken = tmp_path / "broken.jsonl"
    lines = (TINY / "questions.jsonl").read_text().splitlines()
    broken.write_bytes("\n".join([lines[0], lines[1][:20] + "\udce9" + lines[1][20:], *lines[2:]])
                       .encode("utf-8", "surrogateescape") + b"\n")
    done = run_cli(tmp_path, "dataset=questions_jsonl", f"dataset.documents={TINY / 'docs'}",
                   f"dataset.questions={TINY / 'questions.jsonl'},{broken}", "retriever=bm25")
    assert f"{broken}:2: not valid UTF-8 (byte 0xe9 at column 21)" in assert_not_started(tmp_path, done)


@pytest.mark.parametrize("ids, problem", [
    (["x1", "x2"], "no prediction matches a question of the dataset (2 unknown id(s))"),
    (["t1", None], "field 'answer' is missing"),
])
def test_a_bad_predictions_file_stops_the_sweep_naming_file_and_line(tmp_path, ids, problem):
    path = tmp_path / "preds.jsonl"
    path.write_text("".join(json.dumps({"question_id": qid or "t2", **({"answer": "a"} if qid else {})}) + "\n"
                            for qid in ids))
    done = run_cli(tmp_path, *TINY_DATASET_OVERRIDES, "generator=predictions", f"generator.path={path}",
                   "retriever=bm25,dense")
    stderr = assert_not_started(tmp_path, done)
    assert problem in stderr and f"{path}:" in stderr
