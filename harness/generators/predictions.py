"""Evaluate any RAG system: answers read from a predictions file instead of generated.

Two formats, told apart by content:

* JSONL, one object per line::

      {"question_id": "q1", "answer": "3600 seconds", "contexts": ["Tokens expire after..."],
       "route": "rag_docs", "latency_seconds": 1.2, "ttft_seconds": 0.3,
       "input_tokens": 812, "output_tokens": 9, "metrics": {"unieval": 0.91}}

  ``question_id`` and ``answer`` (a string, may be empty) are required, the rest optional.
  ``metrics`` holds scores the system's own evaluators gave the answer (name -> number); they
  become the per-question columns ``external/<name>`` (the ``external`` metric suite), so that
  ``harness meta-eval`` can measure any scorer a user already has against human labels.
* a SQuAD-style predictions object ``{"q1": "3600 seconds", ...}``.

A predictions file holds the system's answers WITH its own retrieval, so it answers only the
``with_context`` condition: ``no_context`` requests come back as failed generations
(``error="predictions file has no no-context answers"``); run a model generator for the
no-context baseline.
"""

from __future__ import annotations

import hashlib
import json
import logging
import math
from pathlib import Path
from typing import Any

from harness.config.schemas.choices import OnMissing, values
from harness.data.records import DatasetError
from harness.data.validation import MAX_REPORTED_PROBLEMS, ProblemList, field_value, iter_jsonl, require_file
from harness.generators.base import CONTEXTS_UNKNOWN, MISSING_PREDICTION, Generation, GenerationRequest, Generator

log = logging.getLogger(__name__)

ON_MISSING = values(OnMissing)

NUMBER_FIELDS = ("latency_seconds", "ttft_seconds")
COUNT_FIELDS = ("input_tokens", "output_tokens")
KNOWN_FIELDS = {"question_id", "answer", "contexts", "route", "metrics", *NUMBER_FIELDS, *COUNT_FIELDS}
SKIPPED = "skipped: no prediction for this question"
NO_CONTEXT = "predictions file has no no-context answers"


class PredictionsGenerator(Generator):
    """Returns the answers in ``path`` for the requested question ids.

    The file is read and validated when the generator is built, so a malformed file fails before
    any retrieval runs; every bad line is reported as ``file:line: field ...``.

    Args:
        path: a JSONL predictions file or a SQuAD-style ``{question_id: answer}`` JSON object.
        on_missing: ``"error"`` raises a DatasetError listing requested ids without an answer;
            ``"skip"`` returns a failed generation for them with ``extra["skipped"] = True``;
            ``"zero"`` scores them as wrong (EM = F1 = 0), as the official SQuAD v1.1 script
            does, with ``extra["missing_prediction"] = True``.
    """

    # Read from the file on every run: a disk-cache entry per answer cost 15 of 124 s (profiled)
    # for SQuAD dev's 10,570 predictions, for nothing to compute.
    cacheable = False

    def __init__(self, path: str, on_missing: str = "error", price_as: str | None = None) -> None:
        self.price_as = price_as
        if on_missing not in ON_MISSING:
            raise ValueError(f"on_missing must be one of {list(ON_MISSING)}, got {on_missing!r}")
        self.path, self.on_missing = Path(path), on_missing
        self.model = f"predictions:{self.path.name}"
        require_file(self.path, "predictions file")
        raw = self.path.read_bytes()
        self.sha256 = hashlib.sha256(raw).hexdigest()
        self.lines: dict[str, int] = {}
        self.predictions = read_predictions(self.path, raw, self.lines)

    def check_questions(self, question_ids: set[str]) -> None:
        """Predictions for questions the dataset lacks are reported (file:line); all of them unknown is an error."""
        unknown = [qid for qid in self.predictions if qid not in question_ids]
        if not unknown:
            return
        where = [f"{self.path}:{self.lines[qid]}" if qid in self.lines else str(self.path) for qid in unknown]
        listed = "; ".join(f"{place}: field 'question_id': unknown id '{qid}'" for place, qid in zip(where, unknown))
        if len(unknown) == len(self.predictions):
            raise DatasetError(f"predictions file {self.path}: no prediction matches a question of the dataset "
                               f"({len(unknown)} unknown id(s)): {listed}")
        log.warning("predictions file %s: %d prediction(s) for questions not in the dataset, ignored: %s",
                    self.path, len(unknown), listed)

    def fingerprint(self) -> dict[str, Any]:
        # on_missing decides what a missing question's answer is (an error, skipped, scored as wrong).
        return {"generator": "predictions", "model": self.model, "sha256": self.sha256, "on_missing": self.on_missing}

    def generate(self, requests: list[GenerationRequest]) -> list[Generation]:
        wanted = [r.question_id for r in requests if r.condition != "no_context"]
        missing = list(dict.fromkeys(qid for qid in wanted if qid not in self.predictions))
        if missing and self.on_missing == "error":
            shown = ", ".join(missing[:MAX_REPORTED_PROBLEMS])
            more = f" and {len(missing) - MAX_REPORTED_PROBLEMS} more" if len(missing) > MAX_REPORTED_PROBLEMS else ""
            raise DatasetError(f"{self.path}: no prediction for {len(missing)} requested question(s): {shown}{more} "
                               f"(set on_missing=skip to score the others)")
        if missing:
            log.warning("%s: %d question(s) have no prediction and are %s", self.path, len(missing),
                        "scored as wrong" if self.on_missing == "zero" else "skipped")
        return [self._answer(request) for request in requests]

    def _answer(self, request: GenerationRequest) -> Generation:
        if request.condition == "no_context":
            return Generation(text="", error=NO_CONTEXT)
        record = self.predictions.get(request.question_id)
        if record is None and self.on_missing == "zero":
            return Generation(text="", extra={MISSING_PREDICTION: True})
        if record is None:
            return Generation(text="", error=SKIPPED, extra={"skipped": True})
        contexts = record.get("contexts")
        return Generation(  # a fresh object per request: callers may annotate ``extra``
            text=record["answer"],
            input_tokens=record.get("input_tokens"),
            output_tokens=record.get("output_tokens"),
            ttft_seconds=record.get("ttft_seconds"),
            latency_seconds=record.get("latency_seconds"),
            contexts=list(contexts) if contexts is not None else None,
            route=record.get("route"),
            metrics=dict(record["metrics"]) if "metrics" in record else None,
            # The system retrieved for itself but did not say what: nothing can be checked against
            # its contexts (the harness's own retrieval is another system's).
            extra={} if contexts is not None else {CONTEXTS_UNKNOWN: True},
        )


def read_predictions(path: Path, raw: bytes, lines: dict[str, int] | None = None) -> dict[str, dict[str, Any]]:
    """``{question_id: record}`` from either format; every problem is collected, then raised.
    ``lines`` receives each id's line number (JSONL)."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as err:
        line = raw[:err.start].count(b"\n") + 1
        raise DatasetError(f"{path}:{line}: not valid UTF-8 (byte 0x{raw[err.start]:02x}, {err.reason})") from err
    problems = ProblemList()
    try:
        whole = json.loads(text)
    except json.JSONDecodeError:
        whole = None
    # A one-line JSONL file is also one JSON object; its record keys tell it apart.
    if isinstance(whole, dict) and not {"question_id", "answer"} & set(whole):
        predictions = _read_answer_map(whole, path, problems)
    elif isinstance(whole, list):
        predictions = {}
        problems.add(path, None, "a JSON array is not a predictions format: write one object per line (JSONL) "
                                 "or one {question_id: answer} object")
    else:
        predictions = _read_jsonl(path, problems, {} if lines is None else lines)
    if not predictions and not problems.problems:
        problems.add(path, None, "no predictions")
    problems.raise_if_any("predictions file")
    return predictions


def _read_answer_map(answers: dict, path: Path, problems: ProblemList) -> dict[str, dict[str, Any]]:
    predictions = {}
    for question_id, answer in answers.items():
        if not isinstance(answer, str):
            problems.add(path, None, f"question '{question_id}': answer must be str, got {type(answer).__name__}")
        else:
            predictions[question_id] = {"answer": answer}
    return predictions


def _read_jsonl(path: Path, problems: ProblemList, first_line: dict[str, int]) -> dict[str, dict[str, Any]]:
    predictions: dict[str, dict[str, Any]] = {}
    unknown: dict[str, int] = {}
    for line, record in iter_jsonl(path, problems):
        parsed = _parse_record(record, path, line, problems)
        for key in record.keys() - KNOWN_FIELDS:
            unknown.setdefault(key, line)
        if parsed is None:
            continue
        question_id = parsed.pop("question_id")
        if question_id in first_line:
            problems.add(path, line, f"field 'question_id': duplicate id '{question_id}' "
                                     f"(first on line {first_line[question_id]})")
            continue
        first_line[question_id] = line
        predictions[question_id] = parsed
    if unknown:
        log.warning("%s: ignoring unknown field(s) %s", path,
                    ", ".join(f"'{key}' (first on line {line})" for key, line in unknown.items()))
    return predictions


def _parse_record(record: dict, path: Path, line: int, problems: ProblemList) -> dict[str, Any] | None:
    before = len(problems.problems)
    parsed: dict[str, Any] = {"question_id": field_value(record, "question_id", str, path, line, problems)}
    if record.get("answer") is None:  # required, but "" is a valid (empty) answer
        problems.add(path, line, "field 'answer' is missing")
    else:
        parsed["answer"] = field_value(record, "answer", str, path, line, problems, required=False)
    contexts = field_value(record, "contexts", list, path, line, problems, required=False)
    if contexts is not None:
        for index, context in enumerate(contexts):
            if not isinstance(context, str):
                problems.add(path, line, f"field 'contexts[{index}]' must be str, got {type(context).__name__}")
        parsed["contexts"] = contexts
    parsed["route"] = field_value(record, "route", str, path, line, problems, required=False)
    parsed["metrics"] = _metrics(record, path, line, problems)
    for name, kind in [(n, (int, float)) for n in NUMBER_FIELDS] + [(n, int) for n in COUNT_FIELDS]:
        value = field_value(record, name, kind, path, line, problems, required=False)
        if value is not None and value < 0:
            problems.add(path, line, f"field '{name}' must be >= 0, got {value}")
        parsed[name] = float(value) if value is not None and name in NUMBER_FIELDS else value
    if len(problems.problems) > before:
        return None
    return {key: value for key, value in parsed.items() if value is not None or key == "question_id"}


def _metrics(record: dict, path: Path, line: int, problems: ProblemList) -> dict[str, float] | None:
    """The line's ``metrics`` object as ``{name: float}``; a non-numeric value is a problem."""
    metrics = field_value(record, "metrics", dict, path, line, problems, required=False)
    if metrics is None:
        return None
    parsed = {}
    for name, value in metrics.items():
        if not name or "/" in name:
            problems.add(path, line, f"field 'metrics': name {name!r} must be non-empty and hold no '/'")
        elif isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            problems.add(path, line, f"field 'metrics.{name}' must be a finite number, got {value!r}")
        else:
            parsed[name] = float(value)
    return parsed
