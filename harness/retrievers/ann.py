"""Vector indexes for dense retrieval: exact search, and faiss's HNSW and IVF indexes.

faiss-cpu was chosen by measurement (``benchmarks/ann_libraries.py``, docs/figures.md "Vector
index libraries"): on 100k clustered 384-d vectors with the same HNSW parameters it matched hnswlib's
and usearch's recall@10, and it alone also brings IVF (with optional product quantisation, the
index that fits 21M passages in memory) and reads and writes its indexes in its own binary
format, which the cache stores checksummed (no pickle).

Each index here holds parameters only; :meth:`VectorIndex.searcher` builds (or loads from the
cache) what searches a corpus's embeddings. Search-time parameters (``ef_search``, ``nprobe``)
are not part of the cache key, so a sweep over them builds the index once.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from pathlib import Path
from typing import Any

import numpy as np

from harness.cache import Codec, DiskCache, content_key
from harness.progress import progress


class Searcher(ABC):
    @abstractmethod
    def search(self, queries: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
        """(scores, ids), each of shape (queries, k), best first; id -1 pads a short result."""

    @abstractmethod
    def nbytes(self) -> int:
        """Bytes of what it searches (the vectors, or the index built from them)."""


class VectorIndex(ABC):
    """A kind of index and its parameters (one option of ``retriever.indexes``)."""

    @abstractmethod
    def searcher(self, vectors: np.ndarray, embeddings_key: str, cache: DiskCache) -> Searcher:
        """What searches ``vectors`` (often a read-only memory map), built or loaded from ``cache``."""

    @abstractmethod
    def fingerprint(self) -> dict[str, Any]:
        """The parameters the built index depends on."""


class ExactSearcher(Searcher):
    def __init__(self, vectors: np.ndarray, block_rows: int, query_rows: int) -> None:
        self.vectors, self.block_rows, self.query_rows = vectors, block_rows, query_rows

    def nbytes(self) -> int:
        return int(self.vectors.nbytes)

    def search(self, queries: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
        """Inner products of ``query_rows`` queries with ``block_rows`` (memory-mapped) vectors at a
        time, keeping the running top k: memory is bounded by the two, not by the corpus."""
        parts = [self._search(queries[first:first + self.query_rows], k)
                 for first in range(0, len(queries), self.query_rows)]
        return np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])

    def _search(self, queries: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
        best_scores = np.empty((len(queries), 0), dtype=np.float32)
        best_ids = np.empty((len(queries), 0), dtype=np.int64)
        for start in range(0, len(self.vectors), self.block_rows):
            block = np.asarray(self.vectors[start:start + self.block_rows], dtype=np.float32)
            scores = queries @ block.T
            keep = min(k, len(block))
            top = np.argpartition(-scores, keep - 1, axis=1)[:, :keep]
            best_scores = np.concatenate([best_scores, np.take_along_axis(scores, top, axis=1)], axis=1)
            best_ids = np.concatenate([best_ids, top + start], axis=1)
            if best_scores.shape[1] > k:
                top = np.argpartition(-best_scores, k - 1, axis=1)[:, :k]
                best_scores = np.take_along_axis(best_scores, top, axis=1)
                best_ids = np.take_along_axis(best_ids, top, axis=1)
        order = np.lexsort((best_ids, -best_scores), axis=1)  # by score, ties by chunk index
        return np.take_along_axis(best_scores, order, axis=1), np.take_along_axis(best_ids, order, axis=1)


class ExactIndex(VectorIndex):
    """Exhaustive inner-product search: exact, no build, linear in the corpus per query.

    Args:
        block_rows: corpus rows scored at once.
        query_rows: queries scored at once (with ``block_rows``, bounds a search's memory).
    """

    def __init__(self, block_rows: int = 65536, query_rows: int = 256) -> None:
        if block_rows < 1 or query_rows < 1:
            raise ValueError(f"block_rows and query_rows must be >= 1, got {block_rows}, {query_rows}")
        self.block_rows, self.query_rows = block_rows, query_rows

    def searcher(self, vectors: np.ndarray, embeddings_key: str, cache: DiskCache) -> Searcher:
        return ExactSearcher(vectors, self.block_rows, self.query_rows)

    def fingerprint(self) -> dict[str, Any]:
        return {"index": "exact"}


def _save_faiss(index, folder: Path) -> None:
    import faiss

    faiss.write_index(index, str(folder / "index.faiss"))


def _load_faiss(folder: Path):
    import faiss

    return faiss.read_index(str(folder / "index.faiss"))


# faiss's own serialisation: a binary file its reader parses, never unpickled.
FAISS_CODEC = Codec(_save_faiss, _load_faiss)


class FaissSearcher(Searcher):
    def __init__(self, index) -> None:
        self.index = index

    def nbytes(self) -> int:
        """The index as faiss writes it (vectors or codes, graph or lists): what it holds in memory."""
        import faiss

        return int(faiss.serialize_index(self.index).nbytes)

    def search(self, queries: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
        scores, ids = self.index.search(np.ascontiguousarray(queries, dtype=np.float32), k)
        return scores, ids


class FaissIndex(VectorIndex):
    """A faiss index built block by block from the embeddings and kept in the cache.

    Args:
        add_rows: vectors added per call (the build's progress steps).
    """

    name = "faiss"

    def __init__(self, add_rows: int) -> None:
        if add_rows < 1:
            raise ValueError(f"add_rows must be >= 1, got {add_rows}")
        self.add_rows = add_rows

    @abstractmethod
    def _empty(self, vectors: np.ndarray):
        """A new, trained, empty faiss index for ``vectors``."""

    @abstractmethod
    def _tune(self, index) -> None:
        """Sets the search-time parameters."""

    def _build(self, vectors: np.ndarray):
        index = self._empty(vectors)
        starts = range(0, len(vectors), self.add_rows)
        for start in progress(starts, len(starts), f"{self.name} index of {len(vectors)} vectors"):
            index.add(np.ascontiguousarray(vectors[start:start + self.add_rows], dtype=np.float32))
        return index

    def searcher(self, vectors: np.ndarray, embeddings_key: str, cache: DiskCache) -> Searcher:
        import faiss

        key = content_key(embeddings_key, self.fingerprint(), faiss.__version__)
        index = cache.get_or_build("dense_index", key, lambda: self._build(vectors), FAISS_CODEC)
        self._tune(index)
        return FaissSearcher(index)


class HNSWIndex(FaissIndex):
    """A hierarchical navigable small-world graph (faiss ``IndexHNSWFlat``, inner product).

    Args:
        m: neighbours per node (memory and recall grow with it).
        ef_construction: candidate list while building (build time and recall grow with it).
        ef_search: candidate list while searching (latency and recall grow with it).
    """

    name = "hnsw"

    def __init__(self, m: int, ef_construction: int, ef_search: int, add_rows: int = 65536) -> None:
        super().__init__(add_rows)
        if min(m, ef_construction, ef_search) < 1:
            raise ValueError(f"m, ef_construction and ef_search must be >= 1, got {m}, {ef_construction}, {ef_search}")
        self.m, self.ef_construction, self.ef_search = m, ef_construction, ef_search

    def _empty(self, vectors: np.ndarray):
        import faiss

        index = faiss.IndexHNSWFlat(vectors.shape[1], self.m, faiss.METRIC_INNER_PRODUCT)
        index.hnsw.efConstruction = self.ef_construction
        return index

    def _tune(self, index) -> None:
        index.hnsw.efSearch = self.ef_search

    def fingerprint(self) -> dict[str, Any]:
        return {"index": "hnsw", "m": self.m, "ef_construction": self.ef_construction}


class IVFIndex(FaissIndex):
    """An inverted file: k-means cells, each query scanning the ``nprobe`` nearest (faiss ``IndexIVFFlat``,
    or ``IndexIVFPQ`` with ``pq_m`` sub-quantisers of 8 bits, which stores a vector in ``pq_m`` bytes).

    Args:
        nlist: cells; at most one per 39 vectors (faiss's minimum training points per centroid).
        nprobe: cells scanned per query.
        train_size: vectors sampled (with ``seed``) to train the cells.
        pq_m: product-quantiser bytes per vector (must divide the dimension), or null for none.
    """

    name = "ivf"
    MIN_POINTS_PER_CELL = 39

    def __init__(self, nlist: int, nprobe: int, train_size: int, seed: int = 0, pq_m: int | None = None,
                 add_rows: int = 65536) -> None:
        super().__init__(add_rows)
        if min(nlist, nprobe, train_size) < 1 or (pq_m is not None and pq_m < 1):
            raise ValueError(f"nlist, nprobe, train_size and pq_m must be >= 1, got {nlist}, {nprobe}, "
                             f"{train_size}, {pq_m}")
        self.nlist, self.nprobe, self.train_size, self.seed, self.pq_m = nlist, nprobe, train_size, seed, pq_m

    def _cells(self, rows: int) -> int:
        return max(1, min(self.nlist, rows // self.MIN_POINTS_PER_CELL))

    def _empty(self, vectors: np.ndarray):
        import faiss

        dim, cells = vectors.shape[1], self._cells(len(vectors))
        quantizer = faiss.IndexFlatIP(dim)
        index = (faiss.IndexIVFFlat(quantizer, dim, cells, faiss.METRIC_INNER_PRODUCT) if self.pq_m is None
                 else faiss.IndexIVFPQ(quantizer, dim, cells, self.pq_m, 8, faiss.METRIC_INNER_PRODUCT))
        rows = np.random.default_rng(self.seed).choice(len(vectors), min(self.train_size, len(vectors)), replace=False)
        index.train(np.ascontiguousarray(vectors[np.sort(rows)], dtype=np.float32))
        return index

    def _tune(self, index) -> None:
        index.nprobe = self.nprobe

    def fingerprint(self) -> dict[str, Any]:
        return {"index": "ivf", "nlist": self.nlist, "train_size": self.train_size, "seed": self.seed,
                "pq_m": self.pq_m}
