"""A finished run's per-question table (:mod:`harness.results.table`), with where it came from."""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.results.table import read_table, table_path


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
    """Reads a per-question table (a run folder or the file); every malformed line is reported
    as ``file:line: ...``."""
    path = table_path(path)
    rows = read_table(path)
    if not rows:
        raise ValueError(f"per-question table {path} has no rows")
    return RunTable(name=name or str(path.parent), path=path, rows=rows, run_id=run_id,
                    experiment_id=experiment_id)
