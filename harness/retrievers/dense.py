"""Dense retrieval: sentence-transformers embeddings and exact inner-product search."""

from __future__ import annotations

from typing import Any

import numpy as np

from harness.cache import ARRAY, DiskCache, content_key
from harness.chunkers.base import Chunk
from harness.models import load_sentence_transformer, model_fingerprint
from harness.progress import progress
from harness.retrievers.base import Retriever, ScoredChunks, indexed_text


class DenseRetriever(Retriever):
    """Embeds chunks once (cached on disk) and ranks them by cosine similarity.

    Args:
        top_k: chunks returned per query.
        model: sentence-transformers model id or local path.
        device: ``auto``, ``cpu``, ``cuda``...
        batch_size: encoding batch size.
        normalize: L2-normalise embeddings, making the inner product a cosine.
        include_title: embed ``title + " " + text``.
    """

    def __init__(self, top_k: int, model: str, device: str = "auto", batch_size: int = 64,
                 normalize: bool = True, include_title: bool = True) -> None:
        super().__init__(top_k)
        if batch_size < 1:
            raise ValueError(f"batch_size must be >= 1, got {batch_size}")
        self.model_name, self.device = model, device
        self.batch_size, self.normalize, self.include_title = batch_size, normalize, include_title
        self._embeddings: np.ndarray | None = None
        self._cache: DiskCache | None = None

    def _encode(self, texts: list[str]) -> np.ndarray:
        encoder = load_sentence_transformer(self.model_name, self.device)
        # One batch per call, so the bar (or log line) counts batches with an ETA.
        starts = range(0, len(texts), self.batch_size)
        parts = [encoder.encode(texts[first:first + self.batch_size], batch_size=self.batch_size,
                                normalize_embeddings=self.normalize, convert_to_numpy=True, show_progress_bar=False)
                 for first in progress(starts, len(starts), f"embedding {len(texts)} texts")]
        if not parts:
            return encoder.encode(texts, convert_to_numpy=True, show_progress_bar=False).astype(np.float32)
        return np.concatenate(parts).astype(np.float32)

    def index(self, chunks: list[Chunk], corpus_key: str, cache: DiskCache) -> None:
        texts = [indexed_text(c, self.include_title) for c in chunks]
        self._cache = cache
        self._embeddings = self._cached_encode("dense", content_key(corpus_key, self.fingerprint()), texts)

    def _cached_encode(self, namespace: str, key: str, texts: list[str]) -> np.ndarray:
        # Queries are cached like the corpus: a re-run then never loads the model at all.
        assert self._cache is not None
        return self._cache.get_or_build(
            namespace, key, lambda: self._encode(texts), ARRAY)

    def search(self, queries: list[str], k: int | None = None) -> list[ScoredChunks]:
        if self._embeddings is None:
            raise RuntimeError("index() must be called before search()")
        k = min(k or self.top_k, len(self._embeddings))
        query_key = content_key(queries, self.fingerprint())
        scores = self._cached_encode("dense_queries", query_key, queries) @ self._embeddings.T
        top = np.argpartition(-scores, k - 1, axis=1)[:, :k]
        results = []
        for row, candidates in zip(scores, top):
            order = sorted(candidates.tolist(), key=lambda i: (-row[i], i))
            results.append([(i, float(row[i])) for i in order])
        return results

    def fingerprint(self) -> dict[str, Any]:
        return {"retriever": "dense", "model": model_fingerprint(self.model_name),
                "normalize": self.normalize, "include_title": self.include_title}
