"""The printed report: kappas at the configured precision, labelled from the unrounded value."""

from __future__ import annotations

import pytest
from hydra.utils import instantiate
from sklearn.metrics import cohen_kappa_score

from harness.human.annotations import read_sheets
from harness.human.export import write_sheet
from harness.human.report import build_report
from harness.human.sampling import Sample
from harness.human.table import read_run_table
from tests.human.conftest import answered_row, fill_sheet, write_table

IDS = ["q1", "q2", "q3", "q4"]
ANN, BOB = [5, 4, 2, 1], [4, 4, 3, 1]


@pytest.mark.parametrize("decimals", [2, 3])
def test_kappa_is_printed_at_kappa_decimals(compose, tmp_path, decimals):
    settings = instantiate(compose([f"human.kappa_decimals={decimals}"]).human)
    run = read_run_table(write_table(tmp_path / "run" / "per_question.jsonl", [answered_row(q) for q in IDS]),
                         name="demo-run")
    sheet = write_sheet(tmp_path / "sheet.csv", Sample(run.answered(), "random", 0), settings.dimensions, "# s",
                        shuffle=False)
    sheets = [fill_sheet(sheet, tmp_path / f"{who}.csv", who,
                         {q: {"relevance": r, "faithfulness": 5, "conciseness": 4, "grade": 2 * r, "verdict": "PASS"}
                          for q, r in zip(IDS, ratings)})
              for who, ratings in (("ann", ANN), ("bob", BOB))]
    report = build_report(run, sheets, read_sheets(sheets, run, settings.dimensions), settings)
    kappa = cohen_kappa_score(ANN, BOB, labels=[1, 2, 3, 4, 5])
    [relevance] = [a for a in report.agreement if a.dimension == "relevance"]
    assert relevance.kappa == pytest.approx(kappa)
    row = next(line for line in report.text().splitlines() if line.lstrip("│ ").startswith("relevance"))
    assert f"{kappa:.{decimals}f}" in row and settings.kappa_label(kappa) in row
