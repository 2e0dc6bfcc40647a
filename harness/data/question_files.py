"""The records of a question file, whatever its format: JSONL, a JSON list, CSV or parquet.

Each record comes with where it is in the file, so that every problem is named ``file:line``:
the line of a JSONL or CSV file (the CSV header is line 1), the item of a JSON list or the row of
a parquet file (both counted from 1). A CSV cell that holds a JSON list or object (``["a", "b"]``)
is read as one; every other cell is a string, and an empty cell is an absent value.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from harness.data.records import DatasetError
from harness.data.validation import ProblemList, iter_jsonl

SUFFIXES = (".jsonl", ".json", ".csv", ".parquet")


def read_records(path: Path, problems: ProblemList) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yields (line or item number, record) of the question file at ``path``; bad ones become problems.

    A ``.json`` file holds a JSON list of objects, or one object per line (JSONL with that suffix).
    """
    suffix = path.suffix.lower()
    if suffix == ".jsonl":
        yield from iter_jsonl(path, problems)
    elif suffix == ".json":
        yield from _json(path, problems)
    elif suffix == ".csv":
        yield from _csv(path, problems)
    elif suffix == ".parquet":
        yield from _parquet(path)
    else:
        raise DatasetError(f"{path}: unknown question file type '{suffix}'; expected one of {list(SUFFIXES)}")


def _json(path: Path, problems: ProblemList) -> Iterator[tuple[int, dict[str, Any]]]:
    try:
        whole = json.loads(path.read_bytes().decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError):
        whole = None
    if not isinstance(whole, list):  # JSONL under a .json name (or broken): read line by line, errors by line
        yield from iter_jsonl(path, problems)
        return
    for number, record in enumerate(whole, start=1):
        if isinstance(record, dict):
            yield number, record
        else:
            problems.add(path, number, f"item {number} of the list: expected a JSON object, "
                                       f"got {type(record).__name__}")


def _csv(path: Path, problems: ProblemList) -> Iterator[tuple[int, dict[str, Any]]]:
    try:
        text = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as err:
        line = path.read_bytes()[:err.start].count(b"\n") + 1
        problems.add(path, line, f"not valid UTF-8 ({err.reason})")
        return
    reader = csv.DictReader(text.splitlines(keepends=True))
    for row in reader:
        if None in row:
            problems.add(path, reader.line_num, f"{len(row[None])} more cell(s) than the header has columns")
            continue
        record = {key: _cell(value) for key, value in row.items() if value is not None and value.strip() != ""}
        if record:
            yield reader.line_num, record


def _cell(value: str) -> Any:
    stripped = value.strip()
    if stripped[:1] in "[{":
        try:
            return json.loads(stripped)
        except json.JSONDecodeError:
            return value
    return value


def _parquet(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    import pyarrow.parquet as pq

    try:
        table = pq.read_table(path)
    except Exception as err:  # pyarrow's own errors (not parquet, truncated) named with the file
        raise DatasetError(f"{path}: cannot read as parquet: {type(err).__name__}: {err}") from err
    for number, row in enumerate(table.to_pylist(), start=1):
        yield number, {key: value for key, value in row.items() if value is not None}
