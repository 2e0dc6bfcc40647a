"""A sentence-transformers ``CrossEncoder`` by Hugging Face id or local path (``reranker=cross_encoder``).

No cross-encoder ships inside a package these machines can install, so the default names a hub
model (``cross-encoder/ms-marco-MiniLM-L6-v2``): it loads from the local Hugging Face cache, or
downloads where the network allows it. Scores are the model's raw outputs (logits for the MS MARCO
models); fusion normalises them where it mixes them with the first stage's.
"""

from __future__ import annotations

import logging
from functools import lru_cache
from typing import Any

from harness.models import installed_path, model_fingerprint, resolve_device
from harness.progress import progress
from harness.rerankers.base import QueryScores, Reranker

log = logging.getLogger(__name__)


class CrossEncoderReranker(Reranker):
    """Args (besides :class:`~harness.rerankers.base.Reranker`'s):
        model: Hugging Face id or local folder of a cross-encoder.
        batch_size: (query, passage) pairs per forward pass.
        max_length: tokens per pair (longer pairs are cut).
        device: ``auto``, ``cpu``, ``cuda``...
    """

    def __init__(self, model: str, batch_size: int, max_length: int, device: str = "auto", **common: Any) -> None:
        super().__init__(**common)
        if batch_size < 1 or max_length < 8:
            raise ValueError(f"reranker.batch_size must be >= 1 and reranker.max_length >= 8, got {batch_size}, "
                             f"{max_length}")
        self.model, self.batch_size, self.max_length, self.device = model, batch_size, max_length, device

    def describe(self) -> str:
        return f"cross_encoder:{self.model}"

    def fingerprint(self) -> dict[str, Any]:
        # batch_size is left out: batching changes scores only at float rounding level.
        return {"reranker": "cross_encoder", "model": model_fingerprint(self.model), "max_length": self.max_length,
                "include_title": self.include_title}

    def score(self, items: list[tuple[str, list[str]]]) -> list[QueryScores]:
        if not items:
            return []
        encoder = load_cross_encoder(self.model, self.max_length, self.device)
        pairs = [(query, passage) for query, passages in items for passage in passages]
        scores: list[float] = []
        batches = [pairs[i:i + self.batch_size] for i in range(0, len(pairs), self.batch_size)]
        for batch in progress(batches, len(batches), "reranking (cross-encoder)"):
            scores.extend(float(s) for s in encoder.predict(batch, batch_size=len(batch), show_progress_bar=False))
        results, start = [], 0
        for _, passages in items:
            results.append(QueryScores(scores=scores[start:start + len(passages)]))
            start += len(passages)
        return results


@lru_cache(maxsize=2)
def load_cross_encoder(model: str, max_length: int, device: str):
    """The CrossEncoder, loaded once per process and shared by every job of a sweep."""
    from sentence_transformers import CrossEncoder

    resolved = resolve_device(device)
    log.info("loading cross-encoder %s on %s", model, resolved)
    return CrossEncoder(installed_path(model), max_length=max_length, device=resolved)
