"""Duplicates: a question whose embedding is too close to one already kept."""

from __future__ import annotations

from typing import Any

import numpy as np

from harness.retrievers.encoding import EncoderSpec


class DuplicatesFilter:
    """Keeps a question whose cosine similarity with every question kept before it is at most
    ``max_cosine`` (the packaged all-MiniLM-L6-v2 by default, normalised embeddings).

    Unlike the other filters it judges a question against the set, so it runs last, on the
    questions the others kept, in the set's order (:meth:`screen`). Scores: ``max_cosine``.
    """

    name = "duplicates"

    def __init__(self, enabled: bool, max_cosine: float, model: str, device: str, batch_size: int) -> None:
        if not -1.0 <= max_cosine <= 1.0:
            raise ValueError(f"synth.filters.duplicates.max_cosine must be between -1 and 1, got {max_cosine}")
        if batch_size < 1:
            raise ValueError(f"synth.filters.duplicates.batch_size must be >= 1, got {batch_size}")
        self.enabled, self.max_cosine = bool(enabled), float(max_cosine)
        self.spec = EncoderSpec(model=model, device=device, batch_size=batch_size, normalize=True)

    def settings(self) -> dict[str, Any]:
        return {"max_cosine": self.max_cosine}

    def vectors(self, questions: list[str]) -> np.ndarray:
        """Unit-length embeddings of ``questions`` (one row each)."""
        if not questions:
            return np.zeros((0, 0), dtype=np.float32)
        return self.spec.encode(questions)

    def screen(self, vectors: np.ndarray, kept: np.ndarray | None) -> tuple[list[dict[str, Any]], np.ndarray | None]:
        """Scores for each row of ``vectors`` in order (each compared with ``kept`` and the rows
        before it that passed) and the kept rows after them."""
        scores = []
        for vector in vectors:
            closest = float(np.max(kept @ vector)) if kept is not None and len(kept) else None
            passed = closest is None or closest <= self.max_cosine
            scores.append({"max_cosine": None if closest is None else round(closest, 4), "passed": passed})
            if passed:
                kept = vector[None, :] if kept is None or not len(kept) else np.vstack([kept, vector])
        return scores, kept
