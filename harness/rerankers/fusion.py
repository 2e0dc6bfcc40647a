"""How a reranker's scores enter the final order: ``replace``, ``interpolate`` or ``rrf``.

Each function takes the first stage's ranking (chunk index, score; best first) and the
reranker's score of each of those chunks (same order), and returns the fused ranking, best first.
Ties keep the first stage's order, so a constant reranker changes nothing.

Example:
    >>> first = [(7, 12.0), (3, 11.0), (9, 4.0)]
    >>> replace(first, [0.1, 0.9, 0.5])
    [(3, 0.9), (9, 0.5), (7, 0.1)]
    >>> [chunk for chunk, _ in interpolate(first, [0.1, 0.9, 0.5], weight=0.5)]
    [3, 7, 9]
"""

from __future__ import annotations

from harness.retrievers.base import ScoredChunks
from harness.retrievers.hybrid import reciprocal_rank_fusion


def replace(first: ScoredChunks, scores: list[float]) -> ScoredChunks:
    """The reranker's order alone."""
    return _ordered([(chunk, score) for (chunk, _), score in zip(first, scores, strict=True)], first)


def interpolate(first: ScoredChunks, scores: list[float], weight: float) -> ScoredChunks:
    """``weight x minmax(reranker) + (1 - weight) x minmax(first stage)`` per query."""
    first_norm = min_max([score for _, score in first])
    rerank_norm = min_max(scores)
    fused = [(chunk, weight * r + (1.0 - weight) * f)
             for (chunk, _), r, f in zip(first, rerank_norm, first_norm, strict=True)]
    return _ordered(fused, first)


def rrf(first: ScoredChunks, scores: list[float], rrf_k: int) -> ScoredChunks:
    """Reciprocal rank fusion of the first stage's order and the reranker's order."""
    reranked = replace(first, scores)
    return _ordered(reciprocal_rank_fusion([first, reranked], rrf_k), first)


def min_max(values: list[float]) -> list[float]:
    """Scaled to [0, 1]; all equal -> all 0 (no information)."""
    if not values:
        return []
    low, high = min(values), max(values)
    return [0.0] * len(values) if high == low else [(v - low) / (high - low) for v in values]


def _ordered(pairs: list[tuple[int, float]], first: ScoredChunks) -> ScoredChunks:
    rank = {chunk: position for position, (chunk, _) in enumerate(first)}
    return sorted(pairs, key=lambda pair: (-pair[1], rank[pair[0]]))
