"""Two systems' prediction files compared in one sweep: two runs named by file stem, paired statistics."""

from __future__ import annotations

import csv
import json

import pytest

from tests.conftest import TINY
from tests.e2e.test_sweep import run_cli, runs_of, split

pytestmark = pytest.mark.slow


def _write_predictions(path, right: set[str]) -> None:
    questions = [json.loads(line) for line in (TINY / "questions.jsonl").read_text().splitlines() if line.strip()]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps({"question_id": q["id"], "answer": q["ground_truth"] if q["id"] in right
                                        else "I do not know"}) + "\n" for q in questions))


def test_two_prediction_files_give_two_named_runs_and_their_comparison(tmp_path):
    # Same file name in two folders, as two systems' output folders often are: named by folder too.
    first, second = tmp_path / "sys_a" / "preds.jsonl", tmp_path / "sys_b" / "preds.jsonl"
    _write_predictions(first, {"t1", "t2", "t3", "t4"})
    _write_predictions(second, {"t1"})
    done = run_cli(tmp_path, "dataset=questions_jsonl", f"dataset.questions={TINY / 'questions.jsonl'}",
                   f"dataset.documents={TINY / 'docs'}", "chunker=none", "generator=predictions",
                   "metrics=[answer]", "metrics.answer.bertscore=null", f"generator.path={first},{second}")
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    _, children = split(runs_of(tmp_path)[1])
    assert sorted(c.info.run_name for c in children) == ["generator.path=sys_a/preds", "generator.path=sys_b/preds"]
    with (tmp_path / "sweep" / "stats.csv").open() as handle:
        rows = list(csv.DictReader(handle))
    f1 = next(r for r in rows if r["metric"] == "answer/f1")
    assert f1["challenger"] == "generator.path=sys_b/preds"  # the champion is sys_a, every answer right
    assert float(f1["mean_difference"]) == pytest.approx(-0.75)  # 3 of 4 questions lost, F1 1 -> 0
    assert "need at least two" not in done.stdout
    notes = {c.info.run_name: c.data.tags["mlflow.note.content"] for c in children}  # set at the sweep's end
    assert "**champion**" in notes["generator.path=sys_a/preds"]
    # 4 questions are too few for any test to tell them apart: undecided (not "tied"), no winner, and the
    # description says so
    note = notes["generator.path=sys_b/preds"]
    assert "**undecided** at margin 0.01 against the champion generator.path=sys_a/preds: answer/f1 -0.7500" in note
    assert "Winner **none**: answer/f1 undecided: the interval" in note
