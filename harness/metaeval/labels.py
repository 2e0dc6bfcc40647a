"""Human labels for meta-evaluation, read strictly from JSONL.

One object per line: ``{"question_id": "q1", "annotator": "a1", "<dimension>": <number>, ...}``.
Every line must carry the same dimensions (those of the first line); a rating is a number, on
the declared scale when there is one. For absolute ratings the number rates the run's answer;
for pairwise labels it says how much better run B's answer is than run A's.
"""

from __future__ import annotations

import math
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path

from harness.data.validation import ProblemList, iter_jsonl, require_file
from harness.metaeval.settings import Scale

KEYS = ("question_id", "annotator")


@dataclass(frozen=True)
class Label:
    """One annotator's ratings of one question, with the line they came from."""

    question_id: str
    annotator: str
    ratings: dict[str, float]
    line: int


@dataclass
class Labels:
    """Every label of a file, in file order."""

    path: Path
    dimensions: list[str]
    items: list[Label]

    @property
    def annotators(self) -> list[str]:
        return list(dict.fromkeys(label.annotator for label in self.items))

    @property
    def question_ids(self) -> list[str]:
        return list(dict.fromkeys(label.question_id for label in self.items))

    def mean_rating(self, dimension: str) -> dict[str, float]:
        """question id -> the annotators' mean rating, in first-seen order."""
        sums: dict[str, list[float]] = {}
        for label in self.items:
            sums.setdefault(label.question_id, []).append(label.ratings[dimension])
        return {qid: sum(values) / len(values) for qid, values in sums.items()}

    def by_annotator(self, dimension: str) -> dict[str, dict[str, float]]:
        """annotator -> question id -> rating."""
        out: dict[str, dict[str, float]] = {}
        for label in self.items:
            out.setdefault(label.annotator, {})[label.question_id] = label.ratings[dimension]
        return out


def read_labels(path: Path, known_ids: Collection[str], scale: Scale | None, run_name: str) -> Labels:
    """Reads and checks a labels file; every problem is reported as ``file:line: ...``.

    Args:
        path: the JSONL file.
        known_ids: the question ids the run(s) scored; any other id is refused.
        scale: the range ratings must lie in, or None for any finite number.
        run_name: how the run is named in the unknown-id message.
    """
    require_file(path, "labels file")
    problems = ProblemList()
    dimensions: list[str] | None = None
    items: list[Label] = []
    seen: dict[tuple[str, str], int] = {}
    for line, record in iter_jsonl(path, problems):
        if dimensions is None:
            dimensions = [key for key in record if key not in KEYS]
            if not dimensions:
                problems.add(path, line, "no dimension: a label line needs at least one rating besides "
                                         "question_id and annotator")
                break
        label = _label(record, path, line, problems, dimensions, known_ids, scale, run_name)
        if label is None:
            continue
        key = (label.question_id, label.annotator)
        if key in seen:
            problems.add(path, line, f"annotator '{label.annotator}' labelled question '{label.question_id}' "
                                     f"twice (first on line {seen[key]})")
            continue
        seen[key] = line
        items.append(label)
    if not items and not problems.problems:
        problems.add(path, None, "no labels")
    problems.raise_if_any("labels file")
    return Labels(path=path, dimensions=list(dimensions or []), items=items)


def _label(record: dict, path: Path, line: int, problems: ProblemList, dimensions: list[str],
           known_ids: Collection[str], scale: Scale | None, run_name: str) -> Label | None:
    before = len(problems.problems)
    ids = {}
    for key in KEYS:
        value = record.get(key)
        if not isinstance(value, str) or not value.strip():
            problems.add(path, line, f"field '{key}' is missing or not a non-empty string")
        ids[key] = value
    if isinstance(ids["question_id"], str) and ids["question_id"] not in known_ids:
        problems.add(path, line, f"unknown question_id '{ids['question_id']}': not scored by {run_name}")
    missing = [d for d in dimensions if d not in record]
    extra = [k for k in record if k not in KEYS and k not in dimensions]
    if missing:
        problems.add(path, line, f"dimension(s) {missing} missing (every line rates {dimensions}, as the first line does)")
    if extra:
        problems.add(path, line, f"unexpected field(s) {extra} (dimensions are {dimensions}, from the first line)")
    ratings = {}
    for dimension in (d for d in dimensions if d in record):
        value = record[dimension]
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            problems.add(path, line, f"field '{dimension}' must be a finite number, got {value!r}")
        elif scale is not None and value not in scale:
            problems.add(path, line, f"field '{dimension}' = {value} is off the declared scale {scale}")
        else:
            ratings[dimension] = float(value)
    if len(problems.problems) > before:
        return None
    return Label(question_id=ids["question_id"], annotator=ids["annotator"], ratings=ratings, line=line)
