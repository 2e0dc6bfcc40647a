"""Passages that retrieve each other: the sources of multi-hop questions."""

from __future__ import annotations

from harness.chunkers.base import Chunk


def mutual_pairs(chunks: list[Chunk], retriever, top_k: int) -> list[tuple[int, int]]:
    """Index pairs ``(a, b)``, ``a < b``, of passages of different documents where each passage,
    searched with its own text, finds the other among its ``top_k`` best passages (itself aside).

    Example: with a retriever that ranks passages by shared words, two passages about the same
    rate limit in two documents pair up; a passage whose best match prefers a third passage does not.
    """
    hits = retriever.search([chunk.text for chunk in chunks], top_k + 1)
    near = [set([index for index, _ in found if index != own][:top_k]) for own, found in enumerate(hits)]
    return [(a, b) for a in range(len(chunks)) for b in sorted(near[a])
            if a < b and a in near[b] and chunks[a].doc_id != chunks[b].doc_id]
