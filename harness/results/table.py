"""The per-question table: one JSON object per question and line, in ``per_question.jsonl``.

The one place that names the file, writes it and reads it back (runs, statistics, annotation,
meta-evaluation and the trackers all go through here).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from harness.config.secrets import redact_text
from harness.data.validation import ProblemList, iter_jsonl, require_file

FILE_NAME = "per_question.jsonl"


def table_path(location: Path) -> Path:
    """The table inside a run folder, or ``location`` itself when it names the file."""
    location = Path(location)
    if location.is_dir() or (not location.is_file() and location.suffix != ".jsonl"):
        return location / FILE_NAME
    return location


def write_table(location: Path, rows: Iterable[dict[str, Any]]) -> Path:
    """Writes the rows (a run folder, or a ``.jsonl`` path); returns the file written.

    Example:
        >>> import tempfile
        >>> folder = Path(tempfile.mkdtemp())
        >>> write_table(folder, [{"question_id": "q1", "retrieval/mrr": 0.5}]).name
        'per_question.jsonl'
        >>> read_table(folder)
        [{'question_id': 'q1', 'retrieval/mrr': 0.5}]
    """
    path = table_path(location)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as handle:
        for row in rows:
            handle.write(redact_text(json.dumps(row, ensure_ascii=False)) + "\n")
    return path


def read_table(location: Path) -> list[dict[str, Any]]:
    """The rows of a table (a run folder, or the file), in file order.

    Raises:
        DatasetError: the file is missing, or a line is not a JSON object, lacks a string
            ``question_id`` or repeats one; every problem is named as ``file:line: ...``.
    """
    path = require_file(table_path(location), "per-question table")
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
    return rows
