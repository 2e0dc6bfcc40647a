"""The retriever interface."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any

from harness.cache import DiskCache
from harness.chunkers.base import Chunk

# Per query: (chunk index, score) pairs, best first.
ScoredChunks = list[tuple[int, float]]


class Retriever(ABC):
    """Index once, search many. ``top_k`` is how many chunks a search returns by default."""

    def __init__(self, top_k: int) -> None:
        if top_k < 1:
            raise ValueError(f"top_k must be >= 1, got {top_k}")
        self.top_k = top_k

    @abstractmethod
    def index(self, chunks: list[Chunk], corpus_key: str, cache: DiskCache) -> None:
        """Builds (or loads from ``cache``) the index of ``chunks``; ``corpus_key`` hashes them."""

    @abstractmethod
    def search(self, queries: list[str], k: int | None = None) -> list[ScoredChunks]:
        """The ``k`` (default ``top_k``) best chunks for each query, best first."""

    @abstractmethod
    def fingerprint(self) -> dict[str, Any]:
        """Everything the index depends on besides the chunks (the cache key's config part)."""

    def index_bytes(self) -> int | None:
        """Bytes the built index holds for searching (its arrays), None when not known: what a
        retrieval-only sweep weighs as memory (``stats.front.retrieval``)."""
        return None


def indexed_text(chunk: Chunk, include_title: bool) -> str:
    """What gets indexed: ``title + " " + text`` (BEIR's convention) or the text alone."""
    return f"{chunk.title} {chunk.text}" if include_title and chunk.title else chunk.text


def ranked(pairs: list[tuple[int, float]], k: int) -> ScoredChunks:
    """The best ``k`` pairs by score, ties broken by chunk index for reproducibility."""
    return sorted(pairs, key=lambda pair: (-pair[1], pair[0]))[:k]
