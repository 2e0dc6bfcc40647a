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


def test_bad_feedback_is_named_by_trace_and_question(tmp_path, settings_for):
    """Labels read from people's feedback on traces get the file's checks, each problem naming the
    trace, its question and the feedback."""
    from harness.metaeval.labels import FeedbackLabel, FeedbackLabels

    run = run_folder(tmp_path, "run", {"m/x": [1, 2, 3]})

    def given(trace, qid, name, value, who, aid):
        return FeedbackLabel(trace_id=trace, question_id=qid, name=name, value=value, annotator=who, assessment_id=aid)

    feedback = FeedbackLabels(source="mlflow:quality,style (run r1)", dimensions=("quality", "style"), traces=5, items=(
        given("t1", "q1", "quality", 3, "ann", "a1"), given("t1", "q1", "style", 2, "ann", "a2"),
        given("t9", "q9", "quality", 3, "ann", "a3"), given("t9", "q9", "style", 3, "ann", "a4"),
        given("t2", "q2", "quality", 7, "ann", "a5"), given("t2", "q2", "style", 1, "ann", "a6"),
        given("t3", "q3", "quality", 4, "ann", "a7"),
        given("t1b", "q1", "quality", 2, "ann", "a8"), given("t1b", "q1", "style", 2, "ann", "a9"),
        given("t0", None, "quality", 2, "ann", "a10")))
    with pytest.raises(DatasetError) as info:
        meta_evaluate([read_run_table(run / "per_question.jsonl")], feedback, settings_for(["meta_eval.absolute_scale=[1,5]"]))
    message = str(info.value)
    where = "mlflow:quality,style (run r1) trace"
    assert "invalid labels mlflow:quality,style (run r1) (5 problem(s))" in message
    assert f"{where} t9 (question q9), feedback a3, a4: unknown question_id 'q9': not scored by" in message
    assert f"{where} t2 (question q2), feedback a5, a6: field 'quality' = 7 is off the declared scale [1, 5]" in message
    assert f"{where} t3 (question q3), feedback a7: dimension(s) ['style'] missing (every label rates " \
           "['quality', 'style'])" in message
    assert f"{where} t1b (question q1), feedback a8, a9: annotator 'ann' labelled question 'q1' twice " \
           "(first on feedback a1, a2)" in message
    assert f"{where} t0, feedback a10: the trace names no question id" in message


def test_a_run_without_labelled_traces_says_why(tmp_path, settings_for):
    from harness.metaeval.labels import FeedbackLabels

    table = read_run_table(run_folder(tmp_path, "run", {"m/x": [1, 2, 3]}) / "per_question.jsonl")
    for traces, reason in ((0, "the run has no traces to label"),
                           (3, "none of the run's 3 traces has a human feedback named 'quality'")):
        with pytest.raises(DatasetError, match=reason):
            meta_evaluate([table], FeedbackLabels("mlflow:quality (run r1)", ("quality",), (), traces), settings_for())
