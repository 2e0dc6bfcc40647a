"""Reading filled sheets back: round trip, spreadsheet re-saves, and every validation error."""

from __future__ import annotations

import csv

import pytest

from harness.data.records import DatasetError
from harness.human.annotations import read_sheets
from harness.human.export import ENCODING, write_sheet
from harness.human.sampling import Sample
from harness.human.table import read_run_table
from tests.human.conftest import answered_row, fill_sheet, write_table

IDS = ["q1", "q2", "q3", "q4"]


def ratings(relevance: list[int], verdict: str = "PASS") -> dict[str, dict]:
    return {q: {"relevance": r, "faithfulness": 5, "conciseness": 4, "grade": 2 * r, "verdict": verdict}
            for q, r in zip(IDS, relevance)}


@pytest.fixture
def run(tmp_path):
    rows = [answered_row(q) for q in IDS] + [{"question_id": "q5", "question": "unanswered"}]
    return read_run_table(write_table(tmp_path / "run" / "per_question.jsonl", rows), name="demo-run")


@pytest.fixture
def sheet(run, settings, tmp_path):
    return write_sheet(tmp_path / "sheet.csv", Sample(run.answered(), "random", 0), settings.dimensions,
                       "# sheet", shuffle=False)


def test_round_trip(run, sheet, settings, tmp_path):
    a = fill_sheet(sheet, tmp_path / "a.csv", "ann", ratings([5, 4, 2, 1]))
    b = fill_sheet(sheet, tmp_path / "b.csv", "bob", ratings([4, 4, 3, 1], verdict="partial"))
    annotations = read_sheets([a, b], run, settings.dimensions)
    assert annotations.annotators == ["ann", "bob"]
    assert annotations.by_annotator("relevance") == {"ann": dict(zip(IDS, [5, 4, 2, 1])),
                                                     "bob": dict(zip(IDS, [4, 4, 3, 1]))}
    assert set(annotations.by_annotator("verdict")["bob"].values()) == {"PARTIAL"}
    assert annotations.mean_rating("relevance") == {"q1": 4.5, "q2": 4.0, "q3": 2.5, "q4": 1.0}
    assert annotations.mean_rating("verdict")["q1"] == 2.5  # PASS = 3, PARTIAL = 2
    merged = list(csv.reader(annotations.to_csv().splitlines()))
    assert merged[0] == ["question_id", "annotator", "relevance", "faithfulness", "conciseness", "grade", "verdict",
                         "notes", "source"]
    assert len(merged) == 9 and merged[1][-1].startswith("a.csv:")


def test_a_sheet_resaved_by_a_spreadsheet_still_reads(run, sheet, settings, tmp_path):
    """Quoted cells, CRLF line ends, padded comment rows, no BOM, '4.0' numbers, one file with
    two annotators."""
    filled = fill_sheet(sheet, tmp_path / "a.csv", "ann", ratings([5, 4, 2, 1]))
    with filled.open(encoding=ENCODING, newline="") as handle:
        records = list(csv.reader(handle))
    width = max(len(r) for r in records)
    resaved = tmp_path / "resaved.csv"
    with resaved.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle, quoting=csv.QUOTE_ALL, lineterminator="\r\n")
        header = None
        for cells in records:
            if cells[0].startswith("#"):
                writer.writerow(cells + [""] * (width - len(cells)))
                continue
            if header is None:
                header = cells
                writer.writerow(cells)
                continue
            row = dict(zip(header, cells))
            writer.writerow([f"{v}.0" if k == "grade" else v for k, v in row.items()])
            writer.writerow([row[h] if h != "annotator" else "bob" for h in header])
        writer.writerow([""] * width)  # trailing empty row
    annotations = read_sheets([resaved], run, settings.dimensions)
    assert annotations.annotators == ["ann", "bob"] and annotations.by_annotator("grade")["ann"]["q1"] == 10


def error_of(paths, run, settings) -> str:
    with pytest.raises(DatasetError) as err:
        read_sheets(paths, run, settings.dimensions)
    return str(err.value)


def rewrite(src, out, edit, extra: list[dict] = ()) -> dict[str, int]:
    """Rewrites a filled sheet row by row (``edit(row) -> row``) plus ``extra`` rows; returns the
    line each data row starts on, by question id (the last one for a repeated id)."""
    with src.open(encoding=ENCODING, newline="") as handle:
        records = list(csv.reader(handle))
    header_at = next(i for i, r in enumerate(records) if not r[0].startswith("#"))
    header = records[header_at]
    rows = [edit(dict(zip(header, r))) for r in records[header_at + 1:]] + [dict(r) for r in extra]
    with out.open("w", encoding=ENCODING, newline="") as handle:
        writer = csv.writer(handle)
        writer.writerows(records[:header_at + 1])
        writer.writerows([[row.get(h, "") for h in header] for row in rows])
    starts, start = {}, 1
    with out.open(encoding=ENCODING, newline="") as handle:
        reader = csv.reader(handle)
        for cells in reader:
            starts[cells[0]] = start
            start = reader.line_num + 1
    return starts


def test_every_problem_is_reported_with_file_line_and_column(run, sheet, settings, tmp_path):
    a = fill_sheet(sheet, tmp_path / "a.csv", "ann", ratings([5, 4, 2, 1]))
    b = fill_sheet(sheet, tmp_path / "b.csv", "bob", ratings([1, 1, 1, 1]))
    edits = {"q1": {"question_id": "q9", "annotator": ""}, "q2": {"relevance": "7"},
             "q3": {"answer": "Another system's answer."}, "q4": {"relevance": "", "verdict": "maybe"}}
    bad = tmp_path / "bad.csv"
    line = rewrite(a, bad, lambda row: {**row, **edits[row["question_id"]]})
    message = error_of([bad, b], run, settings)
    assert f"bad.csv:{line['q9']}: column 'question_id': unknown question id 'q9' (not in run demo-run)" in message
    assert f"bad.csv:{line['q9']}: column 'annotator' is empty" in message
    assert f"bad.csv:{line['q2']}: column 'relevance': '7' is not on the scale 1, 2, 3, 4, 5" in message
    assert f"bad.csv:{line['q3']}: column 'answer' differs from run demo-run's answer to 'q3'" in message
    assert f"bad.csv:{line['q4']}: column 'relevance' is empty" in message
    assert f"bad.csv:{line['q4']}: column 'verdict': 'maybe' is not on the scale FAIL, PARTIAL, PASS" in message
    assert "(6 problem(s))" in message


def test_duplicates_within_and_across_files(run, sheet, settings, tmp_path):
    a = fill_sheet(sheet, tmp_path / "a.csv", "ann", ratings([5, 4, 2, 1]))
    again = fill_sheet(sheet, tmp_path / "again.csv", "ann", {"q2": ratings([5, 4, 2, 1])["q2"]})
    message = error_of([a, again], run, settings)
    assert "again.csv:" in message and "duplicate row: ann already rated 'q2' at a.csv:" in message
    twice = tmp_path / "twice.csv"
    first = rewrite(a, tmp_path / "copy.csv", lambda row: row)["q3"]
    repeated = {"question_id": "q3", "answer": "The answer to q3.", "annotator": "ann", **ratings([2, 2, 2, 2])["q3"]}
    last = rewrite(a, twice, lambda row: row, extra=[repeated])["q3"]
    assert f"twice.csv:{last}: duplicate row: ann already rated 'q3' at twice.csv:{first}" in \
        error_of([twice], run, settings)


def test_structural_problems(run, sheet, settings, tmp_path):
    a = fill_sheet(sheet, tmp_path / "a.csv", "ann", ratings([5, 4, 2, 1]))
    with pytest.raises(ValueError, match="at least 2 annotators; the sheets .* have 1: ann"):
        read_sheets([a], run, settings.dimensions)
    no_column = tmp_path / "no_column.csv"
    no_column.write_text(a.read_text(encoding=ENCODING).replace(",relevance,", ",relevence,"), encoding=ENCODING)
    assert "header lacks the column(s) relevance" in error_of([no_column], run, settings)
    empty = tmp_path / "empty.csv"
    empty.write_text("# only a comment\n", encoding=ENCODING)
    assert "empty.csv: no header row" in error_of([empty], run, settings)
    assert "annotation sheet not found" in error_of([tmp_path / "missing.csv"], run, settings)
    unanswered = tmp_path / "unanswered.csv"
    unanswered.write_text(a.read_text(encoding=ENCODING).replace("q4,What is q4?", "q5,What is q4?"),
                          encoding=ENCODING)
    assert "question 'q5' has no answer in run demo-run" in error_of([unanswered], run, settings)
    binary = tmp_path / "binary.csv"
    binary.write_bytes(b"\xff\xfe\x00garbage")
    assert "not a readable UTF-8 CSV file" in error_of([binary], run, settings)


def test_malformed_run_table_lines_are_named(tmp_path):
    path = tmp_path / "per_question.jsonl"
    path.write_text('{"question_id": "q1"}\nnot json\n{"question_id": "q1"}\n{"answer": "x"}\n')
    with pytest.raises(DatasetError) as err:
        read_run_table(path)
    message = str(err.value)
    assert f"{path}:2: not valid JSON" in message
    assert f"{path}:3: duplicate question_id 'q1' (first on line 1)" in message
    assert f"{path}:4: field 'question_id' is missing" in message
