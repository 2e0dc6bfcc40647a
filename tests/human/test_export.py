"""The annotation sheet: rubric on top, one row per answer, empty rating columns; never overwrites."""

from __future__ import annotations

import csv

import pytest

from harness.human.export import CELL_LIMIT, ENCODING, render_contexts, render_gold, write_sheet
from harness.human.sampling import Sample
from tests.human.conftest import answered_row


def read(path):
    with path.open(encoding=ENCODING, newline="") as handle:
        return list(csv.reader(handle))


def test_sheet_layout(settings, tmp_path):
    rows = [answered_row(f"q{i}", answer=f"answer, with comma\nand a second line {i}") for i in range(6)]
    path = write_sheet(tmp_path / "sheet.csv", Sample(rows, "random", 3), settings.dimensions, "# header", shuffle=True)
    assert path.read_bytes().startswith(b"# ")  # no byte-order mark, comment rows unquoted (pandas reads it)
    records = read(path)
    comments = [r for r in records if r[0].startswith("#")]
    # Comment rows are unquoted lines (pandas' comment handling needs it): a comma splits them into cells.
    text = "\n".join(",".join(r) for r in comments)
    assert "relevance (1-5): Does the answer address the query?" in text
    assert "1 = Completely irrelevant — answer does not address the query at all" in text
    assert "verdict (FAIL/PARTIAL/PASS)" in text and "10 = Perfect" in text
    header = records[len(comments)]
    assert header == ["question_id", "question", "gold_answer", "answer", "contexts", "relevance", "faithfulness",
                      "conciseness", "grade", "verdict", "annotator", "notes"]
    body = records[len(comments) + 1:]
    assert sorted(r[0] for r in body) == [f"q{i}" for i in range(6)]
    assert [r[0] for r in body] != [f"q{i}" for i in range(6)]  # shuffled with the seed...
    again = write_sheet(tmp_path / "again.csv", Sample(rows, "random", 3), settings.dimensions, "# header", True)
    assert read(again) == records  # ...reproducibly
    first = dict(zip(header, body[0]))
    source = next(r for r in rows if r["question_id"] == first["question_id"])
    assert first["answer"] == source["answer"]
    assert all(first[c] == "" for c in ("relevance", "verdict", "annotator", "notes"))
    assert first["contexts"] == f"[1] {source['question_id']}#0\ncontext one of {source['question_id']}\n\n" \
                                f"[2] {source['question_id']}#1\ncontext two of {source['question_id']}"


def test_existing_sheet_is_not_overwritten(settings, tmp_path):
    path = tmp_path / "sheet.csv"
    path.write_text("someone's ratings")
    with pytest.raises(FileExistsError, match="may already hold ratings"):
        write_sheet(path, Sample([answered_row("q1")], "random", 0), settings.dimensions, "# h", False)
    assert path.read_text() == "someone's ratings"
    write_sheet(path, Sample([answered_row("q1")], "random", 0), settings.dimensions, "# h", False, overwrite=True)
    assert "q1" in path.read_text(encoding=ENCODING)


def test_gold_and_context_rendering():
    assert render_gold({"gold_answers": ["3600 seconds", "1 hour"], "expected_answer": None}) == "3600 seconds | 1 hour"
    assert render_gold({"gold_answers": ["3600 s"], "expected_answer": "Tokens expire after 3600 s."}) == \
        "3600 s\n(expected: Tokens expire after 3600 s.)"
    assert render_gold({"gold_answers": []}) == ""
    assert render_contexts({"contexts": ["a", "b"], "retrieved_chunk_ids": ["x"]}) == "[1]\na\n\n[2]\nb"


def test_an_oversized_cell_is_cut_to_the_spreadsheet_limit(settings, tmp_path):
    row = answered_row("q1")
    row["contexts"] = ["x" * (CELL_LIMIT + 10)]
    path = write_sheet(tmp_path / "s.csv", Sample([row], "random", 0), settings.dimensions, "# h", False)
    contexts = [r for r in read(path) if r[0] == "q1"][0][4]
    assert len(contexts) == CELL_LIMIT and contexts.endswith("[... truncated]")


def test_sheet_round_trips_through_pandas(settings, tmp_path):
    """``pandas.read_csv(comment="#")`` reads the table as our reader does, '#' inside cells included."""
    import pandas as pd

    rows = [answered_row(f"q{i}", answer=f"# heading, comma\nline {i}") for i in range(4)]
    path = write_sheet(tmp_path / "sheet.csv", Sample(rows, "random", 0), settings.dimensions,
                       "# header, with a comma", shuffle=False)
    frame = pd.read_csv(path, comment="#", dtype=str, keep_default_na=False)
    records = [r for r in read(path) if not r[0].startswith("#")]
    assert list(frame.columns) == records[0]
    assert frame.values.tolist() == records[1:]
    assert frame["answer"].tolist() == [r["answer"] for r in rows]
