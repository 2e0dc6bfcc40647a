"""What each stage of the pipeline did to each question, and when: the stuff of a question's trace.

A job's pipeline runs its stages (search, rerank, generate, route, judge, score) one after the other
over all its questions. Each stage leaves a :class:`StageRecord`: its wall-clock start and end and,
per question, the :class:`SpanRecord` s of the work it did for that question (a search, two answers,
one judgement per rubric...), each placed on the wall clock: the question's own stretch where the
stage works question by question, else the batch it was part of. The records are plain data: the
tracking layer turns them into traces (``harness.tracking.mlflow.traces``); they are written beside
the per-question table (``stages.json``) so a job logged later (``harness sync``) gets the same traces.

Retrieved chunks are named by id in the spans; their texts are kept once per job in ``passages``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness.config.secrets import redact_text

FILE_NAME = "stages.json"
# Kept in a span's ``documents``: a retrieved chunk's id and its score, in rank order.
ChunkHit = tuple[str, float]


@dataclass
class SpanRecord:
    """One stage's work on one question.

    Attributes:
        name: unique within the question (``search``, ``generate with_context``, ``judge likert/retrieval``).
        kind: what the work was: ``retrieval``, ``rerank``, ``generation``, ``routing``, ``judging``, ``scoring``.
        start, end: wall-clock seconds since the epoch.
        inputs, outputs: what went in and came out (JSON-ready).
        documents: for retrieval and rerank, the chunks returned in rank order (id, score).
        input_documents: for rerank, the first stage's chunks in its order.
        usage: token counts of a model call (``input_tokens``, ``output_tokens``).
        attributes: other facts (the model, whether the result came from the cache, timings).
        error: why the work failed (its outputs are then empty), else None.
        events: moments within the span, ``{"name", "time", "attributes"}`` (a first token).
    """

    name: str
    kind: str
    start: float
    end: float
    inputs: Any = None
    outputs: Any = None
    documents: list[ChunkHit] | None = None
    input_documents: list[ChunkHit] | None = None
    usage: dict[str, int] | None = None
    attributes: dict[str, Any] = field(default_factory=dict)
    error: str | None = None
    events: list[dict[str, Any]] = field(default_factory=list)


@dataclass
class StageRecord:
    """One stage of a job: when it ran, and its spans by question id."""

    name: str
    start: float
    end: float
    spans: dict[str, list[SpanRecord]] = field(default_factory=dict)


@dataclass
class StageRecords:
    """A job's stage records, the texts of the chunks they name, and each question's gold.

    Attributes:
        stages: in the order they ran.
        passages: chunk id -> ``{"doc_id", "title", "text"}`` of every chunk a span names.
        expected: question id -> ``{"response": gold answer or None, "sources": gold document ids}``.
    """

    stages: list[StageRecord] = field(default_factory=list)
    passages: dict[str, dict[str, str]] = field(default_factory=dict)
    expected: dict[str, dict[str, Any]] = field(default_factory=dict)

    def spans_of(self, question_id: str) -> list[SpanRecord]:
        """The question's spans, stage by stage in the order the stages ran."""
        return [span for stage in self.stages for span in stage.spans.get(question_id, [])]

    def write(self, folder: Path) -> Path:
        path = Path(folder) / FILE_NAME
        # vars() for each record as json meets it: the text dataclasses.asdict gives, without its deep copy
        # (a third of the time on a job's half-megabyte of records)
        path.write_text(redact_text(json.dumps(self, ensure_ascii=False, default=vars)), encoding="utf-8")
        return path

    @classmethod
    def read(cls, folder: Path) -> "StageRecords | None":
        """The records :meth:`write` left in ``folder``; None where there are none (an older job)."""
        path = Path(folder) / FILE_NAME
        if not path.exists():
            return None
        data = json.loads(path.read_text(encoding="utf-8"))
        stages = [StageRecord(name=stage["name"], start=stage["start"], end=stage["end"],
                              spans={qid: [_span(span) for span in spans] for qid, spans in stage["spans"].items()})
                  for stage in data["stages"]]
        return cls(stages=stages, passages=data["passages"], expected=data["expected"])


def _span(data: dict[str, Any]) -> SpanRecord:
    for key in ("documents", "input_documents"):
        if data.get(key) is not None:
            data[key] = [tuple(hit) for hit in data[key]]
    return SpanRecord(**data)
