"""Human-evaluation fixtures: the real ``human`` config, synthetic run tables and filled sheets."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest
from hydra.utils import instantiate

from harness.human.export import ENCODING
from harness.results import table as results_table


@pytest.fixture
def settings(compose):
    """The composed ``conf/human/default.yaml`` as HumanEvalSettings."""
    return instantiate(compose().human)


def write_table(path: Path, rows: list[dict]) -> Path:
    return results_table.write_table(path, rows)


def answered_row(qid: str, answer: str | None = None, **columns) -> dict:
    """A per-question row as the pipeline writes it for an answered question."""
    return {"question_id": qid, "question": f"What is {qid}?", "retrieved_chunk_ids": [f"{qid}#0", f"{qid}#1"],
            "answer": answer if answer is not None else f"The answer to {qid}.", "answer_error": None,
            "gold_answers": [f"gold {qid}"], "expected_answer": None,
            "contexts": [f"context one of {qid}", f"context two of {qid}"], **columns}


def fill_sheet(sheet: Path, out: Path, annotator: str, ratings: dict[str, dict[str, object]]) -> Path:
    """Copies an exported sheet, filling rows whose question_id is in ``ratings`` (others dropped)."""
    with sheet.open(encoding=ENCODING, newline="") as handle:
        records = list(csv.reader(handle))
    with out.open("w", encoding=ENCODING, newline="") as handle:
        writer = csv.writer(handle)
        header = None
        for cells in records:
            if cells and cells[0].startswith("#"):
                writer.writerow(cells)
            elif header is None:
                header = cells
                writer.writerow(cells)
            elif cells[0] in ratings:
                row = dict(zip(header, cells))
                row.update({k: str(v) for k, v in ratings[cells[0]].items()}, annotator=annotator)
                writer.writerow([row[h] for h in header])
    return out
