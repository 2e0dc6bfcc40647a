"""The per-question table: one file name, one writer, one strict reader."""

from __future__ import annotations

import json

import pytest

from harness.data.records import DatasetError
from harness.results.records import RunResult
from harness.results.table import FILE_NAME, read_table, table_path, write_table

ROWS = [{"question_id": "q1", "retrieval/mrr": 0.5, "answer": "Zürich"},
        {"question_id": "q2", "retrieval/mrr": None, "retrieved_doc_ids": ["d1", "d2"]}]


def test_written_rows_read_back_equal_in_order(tmp_path):
    path = write_table(tmp_path / "run", ROWS)
    assert path == tmp_path / "run" / FILE_NAME == tmp_path / "run" / "per_question.jsonl"
    assert read_table(tmp_path / "run") == ROWS
    assert read_table(path) == ROWS
    # one JSON object per line, non-ASCII kept as text
    lines = path.read_text(encoding="utf-8").splitlines()
    assert [json.loads(line) for line in lines] == ROWS and "Zürich" in lines[0]


def test_a_jsonl_path_is_the_file_and_a_folder_holds_it(tmp_path):
    assert table_path(tmp_path) == tmp_path / FILE_NAME
    assert table_path(tmp_path / "other.jsonl") == tmp_path / "other.jsonl"
    assert read_table(write_table(tmp_path / "other.jsonl", ROWS)) == ROWS


def test_the_run_result_writes_through_the_table_module(tmp_path):
    result = RunResult(dataset="demo", dataset_sha256="abc", rows=ROWS, metrics={"retrieval/mrr": 0.5})
    written = result.write(tmp_path)
    assert written["per_question"] == tmp_path / FILE_NAME
    assert read_table(tmp_path) == ROWS


def test_malformed_lines_are_named_with_file_and_line(tmp_path):
    path = tmp_path / FILE_NAME
    path.write_text('{"question_id": "q1"}\nnot json\n[1]\n{"question": "no id"}\n{"question_id": "q1"}\n')
    with pytest.raises(DatasetError) as caught:
        read_table(tmp_path)
    message = str(caught.value)
    assert "5 problem" not in message and "4 problem(s)" in message
    assert f"{path}:2: not valid JSON" in message
    assert f"{path}:3: expected a JSON object, got list" in message
    assert f"{path}:4: field 'question_id' is missing" in message
    assert f"{path}:5: duplicate question_id 'q1' (first on line 1)" in message


def test_a_missing_table_is_refused_naming_it(tmp_path):
    with pytest.raises(DatasetError, match=f"per-question table not found: {tmp_path / FILE_NAME}"):
        read_table(tmp_path)
