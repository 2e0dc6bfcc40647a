"""Hybrid retrieval: reciprocal-rank fusion of a sparse and a dense retriever."""

from __future__ import annotations

from typing import Any

from harness.cache import DiskCache
from harness.chunkers.base import Chunk
from harness.retrievers.base import Retriever, ScoredChunks, ranked


def reciprocal_rank_fusion(rankings: list[ScoredChunks], rrf_k: int) -> list[tuple[int, float]]:
    """score(c) = sum over rankings of 1 / (rrf_k + rank of c), rank starting at 1.

    Written here rather than calling ``ranx.fuse``: the numba compilation behind ranx costs
    about 10 s in every new process, far more than the fusion; tests check equality with ranx.
    """
    fused: dict[int, float] = {}
    for ranking in rankings:
        for rank, (chunk, _) in enumerate(ranking, start=1):
            fused[chunk] = fused.get(chunk, 0.0) + 1.0 / (rrf_k + rank)
    return list(fused.items())


class HybridRetriever(Retriever):
    """RRF of the two retrievers' top ``candidates`` chunks.

    Args:
        top_k: chunks returned per query.
        rrf_k: the fusion constant (60 in Cormack et al. and ranx).
        candidates: how many chunks each retriever contributes before fusion.
        sparse, dense: the retrievers to fuse (instantiated from their own config options).
    """

    def __init__(self, top_k: int, rrf_k: int, candidates: int, sparse: Retriever, dense: Retriever) -> None:
        super().__init__(top_k)
        if rrf_k < 0 or candidates < 1:
            raise ValueError(f"rrf_k must be >= 0 and candidates >= 1, got {rrf_k}, {candidates}")
        self.rrf_k, self.candidates = rrf_k, candidates
        self.retrievers = [sparse, dense]

    def index(self, chunks: list[Chunk], corpus_key: str, cache: DiskCache) -> None:
        for retriever in self.retrievers:
            retriever.index(chunks, corpus_key, cache)

    def search(self, queries: list[str], k: int | None = None) -> list[ScoredChunks]:
        k = k or self.top_k
        depth = max(self.candidates, k)
        per_retriever = [retriever.search(queries, depth) for retriever in self.retrievers]
        return [ranked(reciprocal_rank_fusion(list(rankings), self.rrf_k), k)
                for rankings in zip(*per_retriever)]

    def index_bytes(self) -> int | None:
        parts = [retriever.index_bytes() for retriever in self.retrievers]
        return None if None in parts else sum(parts)

    def fingerprint(self) -> dict[str, Any]:
        return {"retriever": "hybrid", "rrf_k": self.rrf_k, "candidates": self.candidates,
                "parts": [r.fingerprint() for r in self.retrievers]}
