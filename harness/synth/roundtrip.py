"""Round trip: the configured retriever, searched with the question, finds its source passage."""

from __future__ import annotations

from typing import Any

from harness.synth.filter import Filter
from harness.synth.records import Candidate, Tools

LEVELS = ("passage", "document")


class RoundTripFilter(Filter):
    """Keeps a question whose every source passage (``level: passage``) or source document
    (``level: document``, what a run's retrieval metrics count) is in the retriever's top ``top_k``.

    Scores: ``ranks``, the 1-based rank of each source (None: not in the top ``top_k``).
    """

    name = "roundtrip"

    def __init__(self, enabled: bool, top_k: int, level: str) -> None:
        super().__init__(enabled)
        if top_k < 1:
            raise ValueError(f"synth.filters.roundtrip.top_k must be >= 1, got {top_k}")
        if level not in LEVELS:
            raise ValueError(f"synth.filters.roundtrip.level must be one of {list(LEVELS)}, got {level!r}")
        self.top_k, self.level = top_k, level

    def check(self, tools: Tools) -> None:
        tools.require_retriever("synth.filters.roundtrip")

    def settings(self) -> dict[str, Any]:
        return {"top_k": self.top_k, "level": self.level}

    def score(self, candidates: list[Candidate], tools: Tools) -> list[dict[str, Any]]:
        if not candidates:
            return []
        hits = tools.require_retriever("synth.filters.roundtrip").search([c.question for c in candidates], self.top_k)
        scores = []
        for candidate, found in zip(candidates, hits, strict=True):
            ranked = [self._key(tools.chunks[index]) for index, _ in found]
            ranks = [ranked.index(self._key(p)) + 1 if self._key(p) in ranked else None for p in candidate.passages]
            scores.append({"ranks": ranks, "passed": all(rank is not None for rank in ranks)})
        return scores

    def _key(self, chunk) -> str:
        return chunk.id if self.level == "passage" else chunk.doc_id
