"""A finished run's per-question table (``per_question.jsonl``), read strictly."""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.data.validation import ProblemList, iter_jsonl, require_file


@dataclass
class RunTable:
    """The rows of one run, in file order, with where they came from.

    Attributes:
        name: how the run is named in reports (its MLflow run name, or the folder).
        path: the JSONL file read.
        rows: one dict per question.
        run_id: the MLflow run id, when the table came from MLflow.
        experiment_id: that run's experiment.
    """

    name: str
    path: Path
    rows: list[dict[str, Any]]
    run_id: str | None = None
    experiment_id: str | None = None

    def __post_init__(self) -> None:
        self.by_id = {row["question_id"]: row for row in self.rows}

    def answered(self) -> list[dict[str, Any]]:
        """Rows with a generated answer (failed generations and unsampled questions left out)."""
        return [row for row in self.rows if isinstance(row.get("answer"), str) and not row.get("answer_error")]

    def numeric_columns(self) -> list[str]:
        """Suite-namespaced columns (``answer/f1``, ``judge/answer_score``...) holding numbers."""
        columns: dict[str, None] = {}
        for row in self.rows:
            for key, value in row.items():
                if "/" in key and number(value) is not None:
                    columns.setdefault(key)
        return sorted(columns)


def number(value: Any) -> float | None:
    """A finite float, or None for anything else (absent, null, NaN, text, lists, booleans)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if math.isfinite(value) else None


def read_run_table(path: Path, name: str | None = None, run_id: str | None = None,
                   experiment_id: str | None = None) -> RunTable:
    """Reads a per-question table; every malformed line is reported as ``file:line: ...``."""
    require_file(path, "per-question table")
    problems = ProblemList()
    rows: list[dict[str, Any]] = []
    first_line: dict[str, int] = {}
    for line, row in iter_jsonl(path, problems):
        qid = row.get("question_id")
        if not isinstance(qid, str) or not qid:
            problems.add(path, line, "field 'question_id' is missing or not a string")
            continue
        if qid in first_line:
            problems.add(path, line, f"duplicate question_id '{qid}' (first on line {first_line[qid]})")
            continue
        first_line[qid] = line
        rows.append(row)
    problems.raise_if_any("per-question table")
    if not rows:
        raise ValueError(f"per-question table {path} has no rows")
    return RunTable(name=name or str(path.parent), path=path, rows=rows, run_id=run_id,
                    experiment_id=experiment_id)
