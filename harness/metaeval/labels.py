"""Human labels for meta-evaluation, read strictly from a JSONL file or from people's feedback on
a run's traces.

A file holds one object per line: ``{"question_id": "q1", "annotator": "a1", "<dimension>": <number>, ...}``.
Every line must carry the same dimensions (those of the first line); a rating is a number, on
the declared scale when there is one. For absolute ratings the number rates the run's answer;
for pairwise labels it says how much better run B's answer is than run A's.

Labels given in a tracker (``--labels mlflow:NAME``) arrive as :class:`FeedbackLabel` records,
one per person's feedback on a question's trace; the same checks apply, and each problem names
the trace and its question instead of a file line.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.data.validation import ProblemList, iter_jsonl, require_file
from harness.human.ratings import Rating, RatingSet
from harness.metaeval.settings import Scale

KEYS = ("question_id", "annotator")


@dataclass
class Labels(RatingSet):
    """Every label, in file order (feedback: the run's question order, then annotator).

    Attributes:
        path: the labels file, or the feedback's source (``mlflow:quality (run 1a2b...)``).
        sha256: the file's bytes, or the labels' canonical JSON, hashed: the labels' identity.
    """

    path: Path | str
    dimensions: list[str]
    items: list[Rating]
    sha256: str = ""


@dataclass(frozen=True)
class FeedbackLabel:
    """One person's feedback on one question's trace, as a tracker reads it.

    Attributes:
        trace_id: the trace it was given on.
        question_id: the trace's question (None when the trace does not say).
        name: the feedback's name (the labels' dimension).
        value: its value as given (a rating must be a number).
        annotator: who gave it (the feedback source's id).
        assessment_id: the feedback's own id.
    """

    trace_id: str
    question_id: str | None
    name: str
    value: Any
    annotator: str
    assessment_id: str


@dataclass(frozen=True)
class FeedbackLabels:
    """The people's feedback a tracker found on a run's traces (:meth:`Tracker.human_feedback`).

    Attributes:
        source: names it in messages (``mlflow:quality (run 1a2b...)``).
        dimensions: the feedback names asked for, in order.
        items: every feedback found, in the run's trace order.
        traces: how many traces the run has.
    """

    source: str
    dimensions: tuple[str, ...]
    items: tuple[FeedbackLabel, ...]
    traces: int


def read_labels(source: Path | FeedbackLabels, known_ids: Collection[str], scale: Scale | None,
                run_name: str) -> Labels:
    """Reads and checks labels; every problem is reported as ``file:line: ...`` (a file) or
    ``<source> trace <id> (question <id>): ...`` (feedback).

    Args:
        source: the JSONL file, or the feedback a tracker read (:class:`FeedbackLabels`).
        known_ids: the question ids the run(s) scored; any other id is refused.
        scale: the range ratings must lie in, or None for any finite number.
        run_name: how the run is named in the unknown-id message.
    """
    if isinstance(source, FeedbackLabels):
        return _checked(source.source, lambda problems: _feedback_records(source, known_ids, problems),
                        list(source.dimensions), known_ids, scale, run_name, _digest(source), _no_feedback(source))
    require_file(source, "labels file")
    return _checked(source, lambda problems: ((source, line, f"line {line}", record)
                                              for line, record in iter_jsonl(source, problems)),
                    None, known_ids, scale, run_name, hashlib.sha256(source.read_bytes()).hexdigest(), "no labels")


Records = Callable[[ProblemList], Iterable[tuple[Any, int | None, str, dict]]]


def _feedback_records(labels: FeedbackLabels, known_ids: Collection[str], problems: ProblemList):
    """One record per question and annotator holding each feedback name, in the run's question
    order, then annotator; the same name given twice on a trace makes a second record (a duplicate)."""
    order = {qid: i for i, qid in enumerate(known_ids)}
    groups: dict[tuple[str | None, str, str], list[dict]] = {}
    for item in labels.items:
        records = groups.setdefault((item.question_id, item.annotator, item.trace_id), [{}])
        if item.name in records[-1]:
            records.append({})
        records[-1][item.name] = item.value
        records[-1].setdefault(_IDS, []).append(item.assessment_id)
    ranked = sorted(groups.items(), key=lambda kv: (order.get(kv[0][0], len(order)), kv[0][1], kv[0][2]))
    for (qid, annotator, trace_id), records in ranked:
        for record in records:
            origin = f"feedback {', '.join(record.pop(_IDS))}"
            where = f"{labels.source} trace {trace_id}" + (f" (question {qid})" if qid else "") + f", {origin}"
            if qid is None:
                problems.add(where, None, "the trace names no question id: its feedback cannot be matched to a question")
                continue
            yield where, None, origin, {"question_id": qid, "annotator": annotator, **record}


_IDS = "\0ids"  # a key no feedback name can take


def _no_feedback(labels: FeedbackLabels) -> str:
    names = " or ".join(f"'{name}'" for name in labels.dimensions)
    if not labels.traces:
        return ("the run has no traces to label (it was logged before the harness wrote traces, or with "
                "tracking.traces=none)")
    return f"none of the run's {labels.traces} traces has a human feedback named {names}"


def _digest(labels: FeedbackLabels) -> str:
    rows = sorted((i.question_id or "", i.annotator, i.name, json.dumps(i.value, default=str)) for i in labels.items)
    return hashlib.sha256(json.dumps(rows).encode("utf-8")).hexdigest()


def _checked(source: Path | str, records: Records, dimensions: list[str] | None, known_ids: Collection[str],
             scale: Scale | None, run_name: str, sha256: str, empty: str) -> Labels:
    problems = ProblemList()
    hint = "" if dimensions else ", as the first line does"
    items: list[Rating] = []
    seen: dict[tuple[str, str], str] = {}
    for where, line, origin, record in records(problems):
        if dimensions is None:
            dimensions = [key for key in record if key not in KEYS]
            if not dimensions:
                problems.add(where, line, "no dimension: a label line needs at least one rating besides "
                                          "question_id and annotator")
                break
        label = _label(record, where, line, origin, problems, dimensions, hint, known_ids, scale, run_name)
        if label is None:
            continue
        key = (label.question_id, label.annotator)
        if key in seen:
            problems.add(where, line, f"annotator '{label.annotator}' labelled question '{label.question_id}' "
                                      f"twice (first on {seen[key]})")
            continue
        seen[key] = origin
        items.append(label)
    if not items and not problems.problems:
        problems.add(source, None, empty)
    problems.raise_if_any("labels file" if isinstance(source, Path) else f"labels {source}")
    return Labels(path=source, dimensions=list(dimensions or []), items=items, sha256=sha256)


def _label(record: dict, where: Any, line: int | None, origin: str, problems: ProblemList, dimensions: list[str],
           hint: str, known_ids: Collection[str], scale: Scale | None, run_name: str) -> Rating | None:
    before = len(problems.problems)
    ids = {}
    for key in KEYS:
        value = record.get(key)
        if not isinstance(value, str) or not value.strip():
            problems.add(where, line, f"field '{key}' is missing or not a non-empty string")
        ids[key] = value
    if isinstance(ids["question_id"], str) and ids["question_id"] not in known_ids:
        problems.add(where, line, f"unknown question_id '{ids['question_id']}': not scored by {run_name}")
    missing = [d for d in dimensions if d not in record]
    extra = [k for k in record if k not in KEYS and k not in dimensions]
    if missing:
        problems.add(where, line, f"dimension(s) {missing} missing (every label rates {dimensions}{hint})")
    if extra:
        problems.add(where, line, f"unexpected field(s) {extra} (dimensions are {dimensions}, from the first line)")
    ratings = {}
    for dimension in (d for d in dimensions if d in record):
        value = record[dimension]
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            problems.add(where, line, f"field '{dimension}' must be a finite number, got {value!r}")
        elif scale is not None and value not in scale:
            problems.add(where, line, f"field '{dimension}' = {value} is off the declared scale {scale}")
        else:
            ratings[dimension] = float(value)
    if len(problems.problems) > before:
        return None
    return Rating(question_id=ids["question_id"], annotator=ids["annotator"], ratings=ratings, where=origin)
