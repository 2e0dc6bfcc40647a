"""Filled annotation sheets, read back strictly and merged.

Every problem in every file is collected and reported at once as ``file:line: column 'x': ...``
(the line where the CSV record starts): an unknown or unanswered question id, a rating that is
not a level of its scale, an empty rating, a missing annotator, the same annotator rating the
same question twice (in one file or across files), a missing column, and an ``answer`` that is
not the run's answer for that question (the sheet was exported from another run).
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.data.validation import ProblemList, require_file
from harness.human.export import ANNOTATOR, COMMENT, ID, NOTES, READ_ENCODING
from harness.human.ratings import Rating, RatingSet
from harness.human.settings import Dimension
from harness.human.table import RunTable


class Annotations(RatingSet):
    """All imported ratings. ``annotators`` is sorted; ``items`` keep file and line order."""

    def __init__(self, items: list[Rating], dimensions: dict[str, Dimension]) -> None:
        self.items = items
        self.dimensions = dimensions

    @property
    def annotators(self) -> list[str]:
        return sorted({a.annotator for a in self.items})

    def mean_rating(self, dimension: str, value=None) -> dict[str, float]:
        """question_id -> the mean of the annotators' ratings as numbers (see Dimension.value)."""
        return super().mean_rating(dimension, value or self.dimensions[dimension].value)

    def to_csv(self) -> str:
        """The merged long table: one line per annotator and question."""
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow([ID, ANNOTATOR, *self.dimensions, NOTES, "source"])
        for item in self.items:
            writer.writerow([item.question_id, item.annotator, *(item.ratings[d] for d in self.dimensions),
                             item.notes, item.where])
        return out.getvalue()


def _records(path: Path):
    """Yields (first line of the record, cells) for every CSV record of a file."""
    with path.open(encoding=READ_ENCODING, newline="") as handle:
        reader = csv.reader(handle)
        start = 1
        for cells in reader:
            yield start, cells
            start = reader.line_num + 1


def _same_text(a: str, b: str) -> bool:
    # Spreadsheets may turn line ends into \r\n or trim spaces; the words must stay.
    return " ".join(a.split()) == " ".join(b.split())


def read_sheets(paths: list[Path], table: RunTable, dimensions: dict[str, Dimension],
                min_annotators: int = 2) -> Annotations:
    """Reads and validates filled sheets against the run they were exported from."""
    problems = ProblemList()
    items: list[Annotation] = []
    seen: dict[tuple[str, str], str] = {}
    for path in paths:
        require_file(path, "annotation sheet")
        try:
            items.extend(_read_one(path, table, dimensions, problems, seen))
        except (UnicodeDecodeError, csv.Error) as err:
            problems.add(path, None, f"not a readable UTF-8 CSV file ({err})")
    problems.raise_if_any("annotation sheets")
    annotators = sorted({item.annotator for item in items})
    if len(annotators) < min_annotators:
        raise ValueError(f"agreement needs ratings from at least {min_annotators} annotators; the sheets "
                         f"{', '.join(map(str, paths))} have {len(annotators)}: {', '.join(annotators) or 'none'}")
    return Annotations(items, dimensions)


def _read_one(path: Path, table: RunTable, dimensions: dict[str, Dimension], problems: ProblemList,
              seen: dict[tuple[str, str], str]) -> list[Annotation]:
    header: list[str] | None = None
    items: list[Annotation] = []
    for line, cells in _records(path):
        first = cells[0].strip() if cells else ""
        if first.startswith(COMMENT) or not any(c.strip() for c in cells):
            continue
        if header is None:
            header = [c.strip() for c in cells]
            missing = [c for c in (ID, ANNOTATOR, *dimensions) if c not in header]
            if missing:
                problems.add(path, line, f"header lacks the column(s) {', '.join(missing)}; "
                                         f"expected {ID}, {', '.join(dimensions)}, {ANNOTATOR}")
                return []
            continue
        row = dict(zip(header, (c.strip() for c in cells)))
        item = _parse_row(row, path, line, table, dimensions, problems)
        if item is None:
            continue
        key = (item.annotator, item.question_id)
        if key in seen:
            problems.add(path, line, f"duplicate row: {item.annotator} already rated '{item.question_id}' "
                                     f"at {seen[key]}")
            continue
        seen[key] = item.where
        items.append(item)
    if header is None:
        problems.add(path, None, f"no header row (a row starting with '{ID}') and no ratings")
    return items


def _parse_row(row: dict[str, str], path: Path, line: int, table: RunTable, dimensions: dict[str, Dimension],
               problems: ProblemList) -> Rating | None:
    before = len(problems.problems)
    qid = row.get(ID, "")
    run_row = table.by_id.get(qid)
    if not qid:
        problems.add(path, line, f"column '{ID}' is empty")
    elif run_row is None:
        problems.add(path, line, f"column '{ID}': unknown question id '{qid}' (not in run {table.name})")
    elif not isinstance(run_row.get("answer"), str):
        problems.add(path, line, f"column '{ID}': question '{qid}' has no answer in run {table.name}")
    elif "answer" in row and not _same_text(row["answer"], run_row["answer"]):
        problems.add(path, line, f"column 'answer' differs from run {table.name}'s answer to '{qid}'; "
                                 "was the sheet exported from another run?")
    annotator = row.get(ANNOTATOR, "")
    if not annotator:
        problems.add(path, line, f"column '{ANNOTATOR}' is empty: write the annotator's name on every rated row")
    ratings: dict[str, Any] = {}
    for name, dim in dimensions.items():
        cell = row.get(name, "")
        if not cell:
            problems.add(path, line, f"column '{name}' is empty: rate it {dim.scale_text()}, or delete the row")
            continue
        try:
            ratings[name] = dim.parse(cell)
        except ValueError as err:
            problems.add(path, line, f"column '{name}': {err}")
    if len(problems.problems) > before:
        return None
    return Rating(question_id=qid, annotator=annotator, ratings=ratings, where=f"{path.name}:{line}",
                  notes=row.get(NOTES, ""))
