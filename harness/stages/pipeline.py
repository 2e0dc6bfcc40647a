"""The retrieval pipeline: chunk, index, search, score. No tracking, no Hydra."""

from __future__ import annotations

import logging
import time
from contextlib import contextmanager

from harness.cache import DiskCache, content_key
from harness.chunkers.base import CHUNKS_CODEC, Chunker
from harness.data.records import Dataset
from harness.stages.answering import Answering
from harness.stages.judging import Judging
from harness.metrics.suites import DerivedSuite, MetricSuite
from harness.rerankers.base import Reranker
from harness.results.records import QuestionRecord, RunResult
from harness.retrievers.base import Retriever
from harness.routers.base import Router

log = logging.getLogger(__name__)


def run_pipeline(dataset: Dataset, chunker: Chunker, retriever: Retriever,
                 suites: dict[str, MetricSuite], cache: DiskCache, answering: Answering | None = None,
                 judging: Judging | None = None, router: Router | None = None,
                 reranker: Reranker | None = None) -> RunResult:
    """Runs every question through the pipeline and scores it with every suite."""
    timings: dict[str, float] = {}
    with _timed(timings, "chunk"):
        documents_key = content_key([(d.id, d.title, d.text) for d in dataset.documents])
        chunks = cache.get_or_build("chunks", content_key(documents_key, chunker.fingerprint()),
                                    lambda: chunker.chunk(dataset.documents), CHUNKS_CODEC)
    if not chunks:
        raise ValueError(f"chunker produced no chunks from dataset '{dataset.name}'")
    log.info("%d documents -> %d chunks", len(dataset.documents), len(chunks))
    with _timed(timings, "index"):
        retriever.index(chunks, content_key([(c.id, c.title, c.text) for c in chunks]), cache)
    queries = [q.text for q in dataset.questions]
    reranks = reranker is not None and reranker.enabled
    with _timed(timings, "search"):
        results = retriever.search(queries, reranker.candidates if reranks else None)
    rerank_figures: dict[str, float] = {}
    first_stage = [None] * len(results)
    if reranks:
        with _timed(timings, "rerank"):
            reranked = reranker.rerank(queries, results, chunks, cache)
        first_stage = [_record(question, hits, chunks, reranker.candidates)
                       for question, hits in zip(dataset.questions, results)]
        results = reranked.rankings
        rerank_figures = _rerank_figures(reranked, timings["rerank"], len(queries))
    records = [_record(question, hits, chunks, reranker.top_k if reranks else retriever.top_k, first)
               for question, hits, first in zip(dataset.questions, results, first_stage)]
    answers = answering is not None and answering.generator.enabled
    if answers:
        with _timed(timings, "generate"):
            answering.answer(records, cache)
    if router is not None:  # after answering: a predictions file brings the route with the answer
        with _timed(timings, "route"):
            for record, route in zip(records, router.route(records, cache), strict=True):
                record.predicted_route = route
    judge_figures: dict[str, float] = {}
    if judging is not None and judging.judge.enabled:
        # The questions that got answers (generation.sample) are the ones judged, retrieval rubrics included.
        judged = answering.selected(records) if answering is not None and answering.generator.enabled else records
        with _timed(timings, "judge"):
            # The self-check samples the whole dataset's questions, not only the judged ones.
            judge_figures = judging.run(judged, cache, population=records)

    per_suite = {name: [] for name in suites}
    with _timed(timings, "score"):
        for suite in suites.values():
            suite.prepare(records, cache)
        columns = []
        for record in records:
            metrics = {}
            for name, suite in suites.items():
                if isinstance(suite, DerivedSuite):
                    continue
                values = suite.score(record)
                per_suite[name].append(values)
                metrics.update({f"{name}/{key}": value for key, value in values.items()})
            columns.append(metrics)
        for name, suite in suites.items():
            if isinstance(suite, DerivedSuite):
                per_suite[name] = suite.derive([dict(metrics) for metrics in columns])
                for metrics, values in zip(columns, per_suite[name], strict=True):
                    metrics.update({f"{name}/{key}": value for key, value in values.items()})
        rows = [record.row(metrics) for record, metrics in zip(records, columns, strict=True)]
    aggregates = {f"{name}/{key}": value for name, suite in suites.items()
                  for key, value in suite.aggregate(per_suite[name]).items()}
    aggregates.update(judge_figures)  # judge/cache_hits, judge/cache_misses, ...
    aggregates.update(rerank_figures)  # rerank/seconds_per_query, rerank/pairs_scored, ...
    artifacts = {filename: text for name, suite in suites.items()
                 for filename, text in suite.artifacts(records, per_suite[name]).items()}
    tallies = [stage.tally for stage, ran in ((answering, answers), (judging, bool(judge_figures))) if ran]
    if reranks:
        tallies.insert(0, reranked.tally)
    info = {
        "questions": len(dataset.questions),
        "documents": len(dataset.documents),
        "chunks": len(chunks),
        "seconds": timings,
        # what a retrieval-only sweep weighs beside quality (stats.front.retrieval)
        "retrieval_seconds_per_query": (timings["search"] + timings.get("rerank", 0.0)) / max(len(queries), 1),
        "index_bytes": retriever.index_bytes(),
        "cache": dict(cache.stats),
        "failures": {tally.stage: tally.summary() for tally in tallies},
        "failed_because": [verdict for verdict in (tally.verdict() for tally in tallies) if verdict],
    }
    return RunResult(dataset=dataset.name, dataset_sha256=dataset.sha256, dataset_source=dataset.source,
                     rows=rows, metrics=aggregates, info=info, artifacts=artifacts)


def _record(question, hits, chunks, top_k: int, first_stage: QuestionRecord | None = None) -> QuestionRecord:
    return QuestionRecord(question=question, chunks=[chunks[i] for i, _ in hits], scores=[score for _, score in hits],
                          top_k=top_k, first_stage=first_stage)


def _rerank_figures(reranked, seconds: float, queries: int) -> dict[str, float]:
    figures = {"rerank/seconds_per_query": seconds / max(queries, 1),
               "rerank/pairs_scored": float(reranked.pairs_scored), "rerank/pairs_cached": float(reranked.pairs_cached),
               "rerank/failed_queries": float(reranked.tally.failed)}
    if reranked.pairs_scored:
        figures["rerank/pairs_per_second"] = reranked.pairs_scored / max(seconds, 1e-9)
    if reranked.cost_usd is not None:
        figures["rerank/cost_usd"] = reranked.cost_usd
    return figures


@contextmanager
def _timed(timings: dict[str, float], stage: str):
    start = time.perf_counter()
    yield
    timings[stage] = round(time.perf_counter() - start, 4)
