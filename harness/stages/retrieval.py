"""The retrieval stages: the first stage's search, and the reranker's second look at its candidates."""

from __future__ import annotations

import time

from harness.chunkers.base import Chunk
from harness.rerankers.base import Reranker
from harness.results.records import QuestionRecord
from harness.results.stage_records import SpanRecord
from harness.retrievers.base import Retriever
from harness.stages.stage import PipelineState, Stage, StageClock


def question_record(question, hits, chunks: list[Chunk], top_k: int,
                    first_stage: QuestionRecord | None = None) -> QuestionRecord:
    """A question's record from its ranking, ``(chunk index, score)`` pairs in rank order."""
    return QuestionRecord(question=question, chunks=[chunks[i] for i, _ in hits], scores=[score for _, score in hits],
                          top_k=top_k, first_stage=first_stage)


def hits_of(record: QuestionRecord) -> list[tuple[str, float]]:
    return [(chunk.id, float(score)) for chunk, score in zip(record.chunks, record.scores)]


def reranks(reranker: Reranker | None) -> bool:
    return reranker is not None and reranker.enabled


class Search(Stage):
    """Every question searched at once; with a reranker, for its ``candidates`` rather than ``top_k``."""

    name = "search"

    def __init__(self, retriever: Retriever, reranker: Reranker | None = None) -> None:
        self.retriever, self.reranker = retriever, reranker

    def run(self, state: PipelineState, clock: StageClock) -> None:
        questions = state.dataset.questions
        candidates = self.reranker.candidates if reranks(self.reranker) else None
        state.rankings = self.retriever.search([q.text for q in questions], candidates)
        top_k = candidates if candidates is not None else self.retriever.top_k
        state.records = [question_record(question, hits, state.chunks, top_k)
                         for question, hits in zip(questions, state.rankings)]

    def spans(self, record: QuestionRecord, clock: StageClock) -> list[SpanRecord]:
        start, end = clock.window_of(record.question.id)
        return [SpanRecord(name=self.name, kind="retrieval", start=start, end=end,
                           inputs={"query": record.question.text}, documents=hits_of(record),
                           attributes={"retriever": type(self.retriever).__name__, "top_k": record.top_k})]


class Rerank(Stage):
    """The reranker's fused order of each question's first-stage candidates; the first stage's
    record is kept on each new record (``first_stage``)."""

    name = "rerank"

    def __init__(self, reranker: Reranker | None) -> None:
        self.reranker = reranker
        self.errors: dict[str, str] = {}

    @property
    def enabled(self) -> bool:
        return reranks(self.reranker)

    def run(self, state: PipelineState, clock: StageClock) -> None:
        queries = [q.text for q in state.dataset.questions]
        started = time.perf_counter()
        reranked = self.reranker.rerank(queries, state.rankings, state.chunks, state.cache)
        seconds = round(time.perf_counter() - started, 4)
        first = state.records
        state.records = [question_record(question, hits, state.chunks, self.reranker.top_k, record)
                         for question, hits, record in zip(state.dataset.questions, reranked.rankings, first)]
        state.rankings = reranked.rankings
        state.tallies.append(reranked.tally)
        state.figures.update(_figures(reranked, seconds, len(queries)))
        self.errors = {first[q].question.id: reason for q, reason in reranked.errors.items()}

    def spans(self, record: QuestionRecord, clock: StageClock) -> list[SpanRecord]:
        start, end = clock.window_of(record.question.id)
        return [SpanRecord(name=self.name, kind="rerank", start=start, end=end, inputs={"query": record.question.text},
                           documents=hits_of(record), input_documents=hits_of(record.first_stage),
                           attributes={"reranker": self.reranker.describe(), "fusion": str(self.reranker.fusion.value),
                                       "top_k": self.reranker.top_k},
                           error=self.errors.get(record.question.id))]


def _figures(reranked, seconds: float, queries: int) -> dict[str, float]:
    figures = {"rerank/seconds_per_query": seconds / max(queries, 1),
               "rerank/pairs_scored": float(reranked.pairs_scored), "rerank/pairs_cached": float(reranked.pairs_cached),
               "rerank/failed_queries": float(reranked.tally.failed)}
    if reranked.pairs_scored:
        figures["rerank/pairs_per_second"] = reranked.pairs_scored / max(seconds, 1e-9)
    if reranked.cost_usd is not None:
        figures["rerank/cost_usd"] = reranked.cost_usd
    return figures
