"""Dense retrieval: sentence-transformers embeddings (memory-mapped, resumable) and a vector index."""

from __future__ import annotations

from typing import Any

import numpy as np

from harness.cache import ARRAY, DiskCache, content_key
from harness.chunkers.base import Chunk
from harness.models import model_fingerprint
from harness.retrievers.ann import ExactIndex, Searcher, VectorIndex
from harness.retrievers.base import Retriever, ScoredChunks, indexed_text
from harness.retrievers.embeddings import embed_corpus
from harness.retrievers.encoding import EncoderSpec, Encoding, LocalEncoding


def chosen(options: dict[str, Any] | None, name: str, key: str, default: Any) -> Any:
    """The option ``name`` of the ``<key>s`` mapping the config declares (its default when none)."""
    if not options:
        return default
    if name not in options:
        raise ValueError(f"retriever.{key} '{name}' is not one of retriever.{key}s: {sorted(options)}")
    return options[name]


class DenseRetriever(Retriever):
    """Embeds chunks once (cached on disk as a memory map) and ranks them with a vector index.

    Args:
        top_k: chunks returned per query.
        model: sentence-transformers model id or local path.
        device: ``auto``, ``cpu``, ``cuda``...
        batch_size: encoding batch size.
        normalize: L2-normalise embeddings, making the inner product a cosine.
        include_title: embed ``title + " " + text``.
        index: which of ``indexes`` searches the embeddings (``exact``, ``hnsw``, ``ivf``).
        indexes: the vector indexes the config declares, by name.
        encoding: which of ``encodings`` computes the corpus's embeddings (``local``, ``ray``).
        encodings: the encoding engines the config declares, by name.
        block_rows: corpus rows per resumable block of the embedding file.
    """

    def __init__(self, top_k: int, model: str, device: str = "auto", batch_size: int = 64,
                 normalize: bool = True, include_title: bool = True, index: str = "exact",
                 indexes: dict[str, VectorIndex] | None = None, encoding: str = "local",
                 encodings: dict[str, Encoding] | None = None, block_rows: int = 4096) -> None:
        super().__init__(top_k)
        if batch_size < 1 or block_rows < 1:
            raise ValueError(f"batch_size and block_rows must be >= 1, got {batch_size}, {block_rows}")
        self.model_name, self.device = model, device
        self.batch_size, self.normalize, self.include_title = batch_size, normalize, include_title
        self.index_name, self.vector_index = index, chosen(indexes, index, "index", ExactIndex())
        self.encoding = chosen(encodings, encoding, "encoding", LocalEncoding())
        self.block_rows = block_rows
        self._embeddings: np.ndarray | None = None
        self._searcher: Searcher | None = None
        self._cache: DiskCache | None = None

    @property
    def spec(self) -> EncoderSpec:
        return EncoderSpec(self.model_name, self.device, self.batch_size, self.normalize)

    def index(self, chunks: list[Chunk], corpus_key: str, cache: DiskCache) -> None:
        texts = [indexed_text(c, self.include_title) for c in chunks]
        self._cache = cache
        key = content_key(corpus_key, self.fingerprint())
        self._embeddings = embed_corpus(texts, key, cache, lambda rows, pending: self.encoding.pieces(
            self.spec, rows, pending), self.block_rows)
        self._searcher = self.vector_index.searcher(self._embeddings, key, cache)

    def search(self, queries: list[str], k: int | None = None) -> list[ScoredChunks]:
        if self._searcher is None or self._cache is None:
            raise RuntimeError("index() must be called before search()")
        k = min(k or self.top_k, len(self._embeddings))
        # Queries are cached like the corpus: a re-run then never loads the model at all.
        vectors = self._cache.get_or_build("dense_queries", content_key(queries, self.fingerprint()),
                                           lambda: self.spec.encode(queries), ARRAY)
        scores, ids = self._searcher.search(vectors, k)
        return [[(int(i), float(s)) for i, s in zip(row_ids, row_scores) if i >= 0]
                for row_ids, row_scores in zip(ids, scores)]

    def index_bytes(self) -> int | None:
        return None if self._searcher is None else self._searcher.nbytes()

    def fingerprint(self) -> dict[str, Any]:
        """What the embeddings depend on; the index's own parameters key the index's entry."""
        return {"retriever": "dense", "model": model_fingerprint(self.model_name),
                "normalize": self.normalize, "include_title": self.include_title}
