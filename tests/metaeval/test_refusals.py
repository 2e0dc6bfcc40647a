"""Bad labels and mismatched runs are refused, naming file and line."""

from __future__ import annotations

import pytest

from harness.data.records import DatasetError
from harness.human.table import read_run_table
from harness.metaeval.evaluate import meta_evaluate
from tests.metaeval.conftest import run_folder, write_jsonl


def refusal(tmp_path, settings, runs: list, labels: list[dict]) -> str:
    path = write_jsonl(tmp_path / "labels.jsonl", labels)
    tables = [read_run_table(r / "per_question.jsonl") for r in runs]
    with pytest.raises(DatasetError) as info:
        meta_evaluate(tables, path, settings)
    return str(info.value)


def test_bad_label_lines_are_named(tmp_path, settings_for):
    run = run_folder(tmp_path, "run", {"m/x": [1, 2, 3]})
    settings = settings_for(["meta_eval.absolute_scale=[1,5]"])
    path = tmp_path / "labels.jsonl"
    message = refusal(tmp_path, settings, [run], [
        {"question_id": "q1", "annotator": "a", "quality": 3, "style": 2},
        {"question_id": "q9", "annotator": "a", "quality": 3, "style": 2},
        {"question_id": "q2", "annotator": "a", "quality": 7, "style": 2},
        {"question_id": "q3", "annotator": "a", "quality": 3},
        {"question_id": "q3", "annotator": "b", "quality": "good", "style": 2},
        {"question_id": "q1", "annotator": "a", "quality": 4, "style": 2},
        {"annotator": "a", "quality": 4, "style": 2}])
    assert f"{path}:2: unknown question_id 'q9': not scored by" in message
    assert f"{path}:3: field 'quality' = 7 is off the declared scale [1, 5]" in message
    assert f"{path}:4: dimension(s) ['style'] missing" in message
    assert f"{path}:5: field 'quality' must be a finite number, got 'good'" in message
    assert f"{path}:6: annotator 'a' labelled question 'q1' twice (first on line 1)" in message
    assert f"{path}:7: field 'question_id' is missing" in message


def test_pairwise_labels_off_the_scale(tmp_path, settings_for):
    a, b = run_folder(tmp_path, "a", {"m/x": [1, 2, 3]}), run_folder(tmp_path, "b", {"m/x": [1, 2, 3]})
    message = refusal(tmp_path, settings_for(), [a, b], [{"question_id": "q1", "annotator": "a", "pref": 3}])
    assert f"{tmp_path / 'labels.jsonl'}:1: field 'pref' = 3 is off the declared scale [-2, 2]" in message


def test_runs_on_different_question_sets(tmp_path, settings_for):
    a = run_folder(tmp_path, "a", {"m/x": [1, 2, 3]})
    b = run_folder(tmp_path, "b", {"m/x": [1, 2, 3, 4]})
    message = refusal(tmp_path, settings_for(), [a, b], [{"question_id": "q1", "annotator": "a", "pref": 1}])
    assert "runs scored on different question sets" in message
    assert f"{b / 'per_question.jsonl'}:4: question 'q4' is not in" in message
