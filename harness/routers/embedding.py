"""``router=embedding``: the nearest route centroid in the packaged encoder's embedding space.

Each route's centroid is the normalised mean of the L2-normalised embeddings of its labelled
example queries (YAML); a question takes the route whose centroid has the highest cosine with
it, or ``default_route`` when ``min_similarity`` is set and no centroid reaches it. Embeddings
go through the disk cache, so a re-run routes without loading the model.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from harness.cache import ARRAY, DiskCache, content_key
from harness.models import load_sentence_transformer, model_fingerprint
from harness.results.records import QuestionRecord
from harness.routers.base import Router


class EmbeddingRouter(Router):
    """Args:
        examples: route -> example queries (at least one each).
        model: sentence-transformers model id or local path (``${models.encoder}``).
        default_route: the route when no centroid reaches ``min_similarity``.
        min_similarity: the lowest cosine that routes by similarity (null: always the nearest).
        device: ``auto``, ``cpu``, ``cuda``...
        batch_size: encoding batch size.
    """

    def __init__(self, examples: Mapping[str, Sequence[str]], model: str, default_route: str,
                 min_similarity: float | None = None, device: str = "auto", batch_size: int = 64) -> None:
        self.examples = {str(route): [str(text) for text in texts] for route, texts in dict(examples).items()}
        empty = [route for route, texts in self.examples.items() if not texts or any(not t.strip() for t in texts)]
        if not self.examples or empty:
            raise ValueError(f"router.examples needs non-empty example queries for every route; empty: {empty}")
        if batch_size < 1:
            raise ValueError(f"router.batch_size must be >= 1, got {batch_size}")
        if min_similarity is not None and not -1 <= min_similarity <= 1:
            raise ValueError(f"router.min_similarity must be in [-1, 1] or null, got {min_similarity}")
        self.model, self.device, self.batch_size = model, device, batch_size
        self.default_route, self.min_similarity = default_route, min_similarity

    def centroids(self, cache: DiskCache | None = None) -> tuple[list[str], np.ndarray]:
        """Route names and their unit-length centroids (one row each)."""
        names = list(self.examples)
        texts = [text for name in names for text in self.examples[name]]
        embedded = self._embed("router_examples", texts, cache)
        rows, start = [], 0
        for name in names:
            block = embedded[start:start + len(self.examples[name])]
            start += len(block)
            mean = block.mean(axis=0)
            rows.append(mean / np.linalg.norm(mean))
        return names, np.vstack(rows)

    def similarities(self, texts: list[str], cache: DiskCache | None = None) -> tuple[list[str], np.ndarray]:
        """Route names and the cosine of every text with every centroid (texts x routes)."""
        names, centroids = self.centroids(cache)
        return names, self._embed("router_queries", texts, cache) @ centroids.T

    def route(self, records: list[QuestionRecord], cache: DiskCache | None = None) -> list[str | None]:
        if not records:
            return []
        names, scores = self.similarities([record.question.text for record in records], cache)
        best = scores.argmax(axis=1)
        return [names[i] if self.min_similarity is None or row[i] >= self.min_similarity else self.default_route
                for i, row in zip(best.tolist(), scores)]

    def routes(self) -> set[str]:
        return set(self.examples) | {self.default_route}

    def _embed(self, namespace: str, texts: list[str], cache: DiskCache | None) -> np.ndarray:
        def encode() -> np.ndarray:
            encoder = load_sentence_transformer(self.model, self.device)
            return encoder.encode(texts, batch_size=self.batch_size, normalize_embeddings=True,
                                  convert_to_numpy=True, show_progress_bar=False).astype(np.float32)

        if cache is None:
            return encode()
        key = content_key(model_fingerprint(self.model), texts)
        return cache.get_or_build(namespace, key, encode, ARRAY)
