"""The retrieval pipeline: chunk, index, then the question stages in order. No tracking, no Hydra.

The question stages (:mod:`harness.stages.stage`) are search, rerank, generate, route, judge and
score; a stage the job does not configure (no reranker, no generator...) is left out. Each is timed
and leaves its record of what it did to each question (``RunResult.stages``), from which the
tracking layer writes each question's trace.
"""

from __future__ import annotations

import logging
import time
from contextlib import contextmanager

from harness.apps.base import App
from harness.cache import DiskCache, content_key
from harness.chunkers.base import CHUNKS_CODEC, Chunk, Chunker
from harness.data.records import Dataset
from harness.metrics.suites import MetricSuite
from harness.rerankers.base import Reranker
from harness.results.records import RunResult
from harness.results.stage_records import StageRecords
from harness.retrievers.base import Retriever
from harness.routers.base import Router
from harness.stages.answer import Answer
from harness.stages.app import AppStage
from harness.stages.answering import Answering
from harness.stages.judge import Judge
from harness.stages.judging import Judging
from harness.stages.retrieval import Rerank, Search
from harness.stages.route import Route
from harness.stages.score import Score
from harness.stages.stage import PipelineState, run_stage

log = logging.getLogger(__name__)


def run_pipeline(dataset: Dataset, chunker: Chunker, retriever: Retriever,
                 suites: dict[str, MetricSuite], cache: DiskCache, answering: Answering | None = None,
                 judging: Judging | None = None, router: Router | None = None,
                 reranker: Reranker | None = None, app: App | None = None) -> RunResult:
    """Runs every question through the pipeline and scores it with every suite.

    With an ``app`` (:mod:`harness.apps`), the app answers in place of search, rerank and generate;
    the documents are still chunked, so that its contexts are placed among the chunks."""
    timings: dict[str, float] = {}
    with _timed(timings, "chunk"):
        documents_key = content_key([(d.id, d.title, d.text) for d in dataset.documents])
        chunks = cache.get_or_build("chunks", content_key(documents_key, chunker.fingerprint()),
                                    lambda: chunker.chunk(dataset.documents), CHUNKS_CODEC)
    if not chunks:
        raise ValueError(f"chunker produced no chunks from dataset '{dataset.name}'")
    log.info("%d documents -> %d chunks", len(dataset.documents), len(chunks))
    app_stage = AppStage(app)
    if not app_stage.enabled:
        with _timed(timings, "index"):
            retriever.index(chunks, content_key([(c.id, c.title, c.text) for c in chunks]), cache)
    state = PipelineState(dataset=dataset, chunks=chunks, cache=cache, timings=timings)
    score = Score(suites)
    answering_stages = (app_stage,) if app_stage.enabled else (Search(retriever, reranker), Rerank(reranker), Answer(answering))
    stages = [stage for stage in (*answering_stages, Route(router), Judge(judging, answering), score) if stage.enabled]
    records = StageRecords(stages=[run_stage(stage, state) for stage in stages])
    records.passages = _passages(records, state.chunks)
    records.expected = {q.id: _expected(q) for q in dataset.questions}
    aggregates = {**score.aggregates, **state.figures}  # figures: judge/cache_hits, rerank/pairs_scored...
    info = {
        "questions": len(dataset.questions),
        "documents": len(dataset.documents),
        "chunks": len(chunks),
        "seconds": timings,
        # what a retrieval-only sweep weighs beside quality (stats.front.retrieval)
        "retrieval_seconds_per_query": (timings.get("search", timings.get("app", 0.0)) + timings.get("rerank", 0.0))
                                       / max(len(dataset.questions), 1),
        "index_bytes": 0 if app_stage.enabled else retriever.index_bytes(),
        "cache": dict(cache.stats),
        "failures": {tally.stage: tally.summary() for tally in state.tallies},
        "failed_because": [verdict for verdict in (tally.verdict() for tally in state.tallies) if verdict],
        **({"warnings": state.warnings} if state.warnings else {}),
    }
    return RunResult(dataset=dataset.name, dataset_sha256=dataset.sha256, dataset_source=dataset.source,
                     rows=score.rows, metrics=aggregates, info=info, artifacts=score.artifacts, stages=records)


def _passages(records: StageRecords, chunks: list[Chunk]) -> dict[str, dict[str, str]]:
    """The texts of the chunks the spans name, once each."""
    named = {chunk_id for stage in records.stages for spans in stage.spans.values() for span in spans
             for chunk_id, _ in (span.documents or []) + (span.input_documents or [])}
    return {chunk.id: {"doc_id": chunk.doc_id, "title": chunk.title, "text": chunk.text}
            for chunk in chunks if chunk.id in named}


def _expected(question) -> dict:
    gold = question.expected_answer or question.ground_truth or (" | ".join(question.answers) or None)
    return {"response": gold, "sources": sorted(d for d, grade in question.relevant.items() if grade > 0)}


@contextmanager
def _timed(timings: dict[str, float], stage: str):
    start = time.perf_counter()
    yield
    timings[stage] = round(time.perf_counter() - start, 4)
