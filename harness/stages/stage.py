"""A stage of the pipeline: one object over the job's question records, timed and recorded in one place.

The pipeline (:mod:`harness.stages.pipeline`) runs its stages in order through :func:`run_stage`,
which times each one (``info["seconds"][stage.name]``) and keeps its :class:`StageRecord`: the
stage's wall-clock window and, per question, the spans the stage says it made
(:meth:`Stage.spans`), each placed on the wall clock by the stage's :class:`StageClock`.
"""

from __future__ import annotations

import time
from collections import Counter
from abc import ABC, abstractmethod
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from harness.cache import DiskCache
from harness.chunkers.base import Chunk
from harness.data.records import Dataset
from harness.failures import FailureTally
from harness.results.records import QuestionRecord
from harness.results.stage_records import StageRecord, SpanRecord


@dataclass
class PipelineState:
    """What the stages of one job share: the questions' records and what the job has measured."""

    dataset: Dataset
    chunks: list[Chunk]
    cache: DiskCache
    records: list[QuestionRecord] = field(default_factory=list)
    # The first stage's rankings, (chunk index, score) per question: what a reranker re-scores.
    rankings: list[Any] = field(default_factory=list)
    timings: dict[str, float] = field(default_factory=dict)
    # Run-level figures stages add beside the metric suites' aggregates (rerank/..., judge/...).
    figures: dict[str, float] = field(default_factory=dict)
    tallies: list[FailureTally] = field(default_factory=list)
    # What a stage found wrong with the run's results though nothing failed (shown and kept in ``info``).
    warnings: list[str] = field(default_factory=list)


class StageClock:
    """Where a stage's work on each question falls on the wall clock.

    A stage that works question by question (or batch by batch) notes each stretch with
    :meth:`add` or :meth:`window`; a question it noted nothing for is placed on the stage's own
    window (the batch was the whole stage). ``label`` tells apart several pieces of work on one
    question (an answer with and one without context).
    """

    def __init__(self) -> None:
        self.start = time.time()
        self.end = self.start
        self._windows: dict[tuple[str, str | None], tuple[float, float]] = {}

    def add(self, question_ids: list[str], start: float, end: float, label: str | None = None) -> None:
        for question_id in question_ids:
            self._windows[(question_id, label)] = (start, end)

    @contextmanager
    def window(self, question_ids: list[str], label: str | None = None):
        start = time.time()
        try:
            yield
        finally:
            self.add(question_ids, start, time.time(), label)

    def timer(self, question_ids: list[str], label: str | None = None):
        """A callback ``(positions, start, end)`` that notes the questions at ``positions`` of
        ``question_ids`` (what :func:`harness.generators.cached.generate_cached` reports)."""
        return lambda positions, start, end: self.add([question_ids[i] for i in positions], start, end, label)

    def window_of(self, question_id: str, label: str | None = None) -> tuple[float, float]:
        return self._windows.get((question_id, label)) or self._windows.get((question_id, None)) \
            or (self.start, self.end)


class Stage(ABC):
    """One step over all of a job's question records.

    Attributes:
        name: its key in the job's timings (``time/<name>_seconds``) and its record's name.
    """

    name: str = ""

    @property
    def enabled(self) -> bool:
        """Whether the job runs this stage (a reranker configured, a generator...)."""
        return True

    @abstractmethod
    def run(self, state: PipelineState, clock: StageClock) -> None:
        """Does the stage's work on ``state.records`` (in place), noting its stretches on ``clock``."""

    def spans(self, record: QuestionRecord, clock: StageClock) -> list[SpanRecord]:
        """The stage's spans of one question, read right after the stage ran (none by default)."""
        return []


def run_stage(stage: Stage, state: PipelineState) -> StageRecord:
    """Runs the stage, times it into ``state.timings`` and returns its record."""
    clock = StageClock()
    started = time.perf_counter()
    stage.run(state, clock)
    seconds = time.perf_counter() - started
    state.timings[stage.name] = round(seconds, 4)
    clock.end = clock.start + seconds
    spans = {record.question.id: stage.spans(record, clock) for record in state.records}
    note_batches(spans)
    return StageRecord(name=stage.name, start=clock.start, end=clock.end,
                       spans={question_id: found for question_id, found in spans.items() if found})


def note_batches(spans: dict[str, list[SpanRecord]]) -> None:
    """Marks the spans that share their stretch with other questions' (a batch: one generation call
    for many questions, a rubric's judging, the scoring): ``batch_size`` questions in ``batch_seconds``.
    A question's trace then counts its share of the batch, not the whole batch, as its time."""
    sizes = Counter((span.name, span.start, span.end) for found in spans.values() for span in found)
    for found in spans.values():
        for span in found:
            size = sizes[(span.name, span.start, span.end)]
            if size > 1:
                span.attributes.update(batch_size=size, batch_seconds=round(span.end - span.start, 6))
