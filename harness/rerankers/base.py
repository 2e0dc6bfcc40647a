"""The reranker interface and what every reranker shares: caching, fusion, failure accounting.

A reranker re-scores the first stage's top ``candidates`` chunks of each query and keeps the best
``top_k`` of the fused order. Pointwise scores depend only on (model, query, passage), so they are
cached per query as a map from passage hash to score: a sweep's jobs that retrieve overlapping
candidates (bm25 and hybrid) score each passage once. Listwise scores depend on the whole list,
so they are cached per (model, query, candidate list). A query whose scoring failed keeps its
first-stage order and is counted as a failure with its reason, never as a result.
"""

from __future__ import annotations

import logging
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any

from harness.cache import DiskCache, content_key
from harness.chunkers.base import Chunk
from harness.config.schemas.choices import CacheMode, Fusion
from harness.failures import FailureTally, check_fraction
from harness.rerankers import fusion as fusions
from harness.retrievers.base import ScoredChunks, indexed_text

log = logging.getLogger(__name__)
NAMESPACE = "rerank_scores"


@dataclass
class QueryScores:
    """The reranker's scores of one query's passages (same order), or why it has none."""

    scores: list[float] | None = None
    error: str | None = None
    input_tokens: int = 0
    output_tokens: int = 0


@dataclass
class Reranked:
    """The fused rankings (one per query, ``top_k`` long) and what reranking cost."""

    rankings: list[ScoredChunks]
    pairs_scored: int = 0
    pairs_cached: int = 0
    cost_usd: float | None = None
    tally: FailureTally | None = None
    figures: dict[str, float] = field(default_factory=dict)
    # Query index -> why its scoring failed (it kept its first-stage order).
    errors: dict[int, str] = field(default_factory=dict)


class Reranker(ABC):
    """Args:
        candidates: first-stage chunks re-scored per query.
        top_k: chunks kept after fusion (they feed the prompt and the retrieval metrics).
        fusion: ``replace``, ``interpolate`` or ``rrf`` (:mod:`harness.rerankers.fusion`).
        weight: the reranker's share in ``interpolate`` (the first stage gets ``1 - weight``).
        rrf_k: the constant of ``rrf``.
        include_title: passages are ``title + " " + text`` (as indexed) or the text alone.
        cache: ``on``, ``refresh`` (recompute, overwrite) or ``off``.
        max_failed_fraction: more failed queries than this share (or all) fail the job.
    """

    enabled = True
    pointwise = True  # False: a score depends on the whole candidate list (listwise)

    def __init__(self, candidates: int, top_k: int, fusion: str, weight: float, rrf_k: int,
                 include_title: bool = True, cache: str = "on", max_failed_fraction: float = 0.5) -> None:
        if candidates < 1 or top_k < 1 or top_k > candidates:
            raise ValueError(f"reranker.candidates and reranker.top_k must be >= 1 with top_k <= candidates, "
                             f"got candidates={candidates}, top_k={top_k}")
        if rrf_k < 0:
            raise ValueError(f"reranker.rrf_k must be >= 0, got {rrf_k}")
        self.candidates, self.top_k = candidates, top_k
        self.fusion, self.rrf_k = Fusion(fusion), rrf_k
        self.weight = check_fraction("reranker.weight", weight)
        self.include_title, self.cache = include_title, CacheMode(cache)
        self.max_failed_fraction = check_fraction("reranker.max_failed_fraction", max_failed_fraction)

    @abstractmethod
    def score(self, items: list[tuple[str, list[str]]]) -> list[QueryScores]:
        """Scores each (query, passages) item; a failure is a QueryScores with ``error``, never raised."""

    @abstractmethod
    def fingerprint(self) -> dict[str, Any]:
        """Model, its revision or file hash, prompts and mode: the cache key's reranker part."""

    def describe(self) -> str:
        return type(self).__name__

    def cost(self, input_tokens: int, output_tokens: int) -> float | None:
        """Dollars for the tokens sent and received (None: not an API model, or unpriced)."""
        return None

    def fuse(self, first: ScoredChunks, scores: list[float]) -> ScoredChunks:
        if self.fusion == Fusion.replace:
            fused = fusions.replace(first, scores)
        elif self.fusion == Fusion.interpolate:
            fused = fusions.interpolate(first, scores, self.weight)
        else:
            fused = fusions.rrf(first, scores, self.rrf_k)
        return fused[:self.top_k]

    def rerank(self, queries: list[str], first: list[ScoredChunks], chunks: list[Chunk],
               cache: DiskCache) -> Reranked:
        """The fused top ``top_k`` of each query's first-stage ``candidates``."""
        fingerprint = self.fingerprint()
        passages = [[indexed_text(chunks[i], self.include_title) for i, _ in ranking] for ranking in first]
        keys = [self._key(fingerprint, query, texts) for query, texts in zip(queries, passages)]
        use_cache = cache.enabled and self.cache != CacheMode.off
        stored = [cache.get(NAMESPACE, key) if use_cache and self.cache == CacheMode.on else None for key in keys]
        stored = [entry if isinstance(entry, dict) else {} for entry in stored]
        todo: list[tuple[int, list[int]]] = []  # (query, passages to score)
        for q, texts in enumerate(passages):
            missing = [p for p, text in enumerate(texts) if _passage_key(text) not in stored[q]]
            if missing:
                todo.append((q, missing if self.pointwise else list(range(len(texts)))))
        cached_pairs = sum(len(texts) for texts in passages) - sum(len(m) for _, m in todo)
        log.info("reranking %d queries with %s (%d pairs to score, %d from the cache)", len(queries),
                 self.describe(), sum(len(m) for _, m in todo), cached_pairs)
        results = self.score([(queries[q], [passages[q][p] for p in missing]) for q, missing in todo])
        tally = FailureTally("rerank", self.max_failed_fraction)
        failed: dict[int, str] = {}
        tokens = [0, 0]
        for (q, missing), result in zip(todo, results, strict=True):
            tally.add(result.error)
            tokens[0] += result.input_tokens
            tokens[1] += result.output_tokens
            if result.error is not None or result.scores is None or len(result.scores) != len(missing):
                failed[q] = result.error or (f"{0 if result.scores is None else len(result.scores)} scores "
                                             f"for {len(missing)} passages")
                continue
            stored[q] = {**stored[q], **{_passage_key(passages[q][p]): float(s)
                                         for p, s in zip(missing, result.scores)}}
            if use_cache:
                cache.put(NAMESPACE, keys[q], stored[q])
        rankings = []
        for q, ranking in enumerate(first):
            if q in failed:  # keeps the first stage's order; counted in the tally
                rankings.append(ranking[:self.top_k])
            else:
                rankings.append(self.fuse(ranking, [stored[q][_passage_key(t)] for t in passages[q]]))
        return Reranked(rankings=rankings, pairs_scored=sum(len(m) for _, m in todo), pairs_cached=cached_pairs,
                        cost_usd=self.cost(*tokens) if todo else None, tally=tally, errors=failed)

    def _key(self, fingerprint: dict[str, Any], query: str, texts: list[str]) -> str:
        return content_key(fingerprint, query) if self.pointwise else content_key(fingerprint, query, texts)


class NoReranker(Reranker):
    """No second stage: the first stage's ranking is the final one (``reranker=none``).

    It takes the settings every reranker has, unused, so that a sweep such as
    ``reranker=none,llm reranker.candidates=20`` composes for both options.
    """

    enabled = False

    def __init__(self, **unused: Any) -> None:  # noqa: D107 - nothing is checked: nothing is used
        pass

    def score(self, items: list[tuple[str, list[str]]]) -> list[QueryScores]:
        raise RuntimeError("reranker=none scores nothing")

    def fingerprint(self) -> dict[str, Any]:
        return {"reranker": "none"}


def _passage_key(text: str) -> str:
    return content_key(text)[:32]
