"""Vector indexes: exact block-wise search equals a brute-force sort; faiss HNSW and IVF reach the
exact neighbours; built indexes are checksummed cache entries shared by runs with the same
embeddings; a dense retriever with index=hnsw ranks like exact."""

from __future__ import annotations

import numpy as np
import pytest

from harness.cache import DiskCache
from harness.retrievers.ann import ExactIndex, HNSWIndex, IVFIndex


def clustered(rows: int, dim: int = 32, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    centres = rng.standard_normal((20, dim))
    vectors = centres[rng.integers(0, 20, rows)] + 0.5 * rng.standard_normal((rows, dim))
    return (vectors / np.linalg.norm(vectors, axis=1, keepdims=True)).astype(np.float32)


@pytest.fixture(scope="module")
def data() -> tuple[np.ndarray, np.ndarray]:
    vectors = clustered(2050)
    return vectors[:2000], vectors[2000:]


def brute_force(vectors: np.ndarray, queries: np.ndarray, k: int) -> np.ndarray:
    scores = queries @ vectors.T
    return np.array([sorted(range(len(vectors)), key=lambda i: (-row[i], i))[:k] for row in scores])


@pytest.mark.parametrize("block_rows, query_rows", [(1, 50), (7, 3), (2000, 1), (5000, 256)])
def test_exact_blockwise_search_equals_a_full_sort(data, tmp_path, block_rows, query_rows):
    vectors, queries = data
    index = ExactIndex(block_rows, query_rows)
    scores, ids = index.searcher(vectors, "k", DiskCache(tmp_path)).search(queries, 10)
    np.testing.assert_array_equal(ids, brute_force(vectors, queries, 10))
    np.testing.assert_allclose(scores, np.take_along_axis(queries @ vectors.T, ids, axis=1), rtol=1e-6)


def test_exact_search_of_a_memory_map(data, tmp_path):
    vectors, queries = data
    path = tmp_path / "v.npy"
    np.save(path, vectors)
    mapped = np.load(path, mmap_mode="r")
    _, ids = ExactIndex(300).searcher(mapped, "k", DiskCache(tmp_path)).search(queries, 5)
    np.testing.assert_array_equal(ids, brute_force(vectors, queries, 5))


def recall_at(ids: np.ndarray, truth: np.ndarray) -> float:
    return float(np.mean([len(set(a) & set(b)) / len(b) for a, b in zip(ids, truth)]))


@pytest.mark.parametrize("index", [HNSWIndex(m=16, ef_construction=100, ef_search=64, add_rows=500),
                                   IVFIndex(nlist=32, nprobe=8, train_size=2000, add_rows=700),
                                   IVFIndex(nlist=32, nprobe=8, train_size=2000, pq_m=8)])
def test_faiss_indexes_find_the_exact_neighbours(data, tmp_path, index):
    vectors, queries = data
    _, ids = index.searcher(vectors, "k", DiskCache(tmp_path)).search(queries, 10)
    minimum = 0.6 if index.fingerprint().get("pq_m") else 0.95  # 8 bytes per 32-d vector is lossy
    assert recall_at(ids, brute_force(vectors, queries, 10)) >= minimum


def test_built_index_is_a_cache_entry_shared_across_search_parameters(data, tmp_path):
    vectors, queries = data
    cache = DiskCache(tmp_path)
    first = HNSWIndex(m=16, ef_construction=100, ef_search=64).searcher(vectors, "emb", cache).search(queries, 10)
    second = HNSWIndex(m=16, ef_construction=100, ef_search=64).searcher(vectors, "emb", cache).search(queries, 10)
    assert cache.stats == {"dense_index/miss": 1, "dense_index/hit": 1}
    np.testing.assert_array_equal(first[1], second[1])
    HNSWIndex(m=16, ef_construction=100, ef_search=256).searcher(vectors, "emb", cache)  # search-time only
    assert cache.stats["dense_index/hit"] == 2
    HNSWIndex(m=8, ef_construction=100, ef_search=64).searcher(vectors, "emb", cache)
    HNSWIndex(m=16, ef_construction=100, ef_search=64).searcher(vectors, "other embeddings", cache)
    assert cache.stats["dense_index/miss"] == 3
    entries = list((tmp_path / "v2" / "dense_index").iterdir())
    assert len(entries) == 3  # faiss's own file, checksummed: nothing pickled
    assert all(sorted(f.name for f in entry.iterdir()) == ["SHA256SUMS", "index.faiss"] for entry in entries)


def test_corrupt_index_entry_is_rebuilt(data, tmp_path):
    vectors, queries = data
    HNSWIndex(m=16, ef_construction=100, ef_search=64).searcher(vectors, "emb", DiskCache(tmp_path))
    (entry,) = (tmp_path / "v2" / "dense_index").iterdir()
    stored = entry / "index.faiss"
    stored.write_bytes(stored.read_bytes()[:-100] + bytes(100))
    cache = DiskCache(tmp_path)
    _, ids = HNSWIndex(m=16, ef_construction=100, ef_search=64).searcher(vectors, "emb", cache).search(queries, 10)
    assert cache.stats == {"dense_index/miss": 1, "dense_index/corrupt": 1}
    assert recall_at(ids, brute_force(vectors, queries, 10)) >= 0.95


@pytest.mark.parametrize("options", [dict(m=0, ef_construction=1, ef_search=1),
                                     dict(m=8, ef_construction=1, ef_search=1, add_rows=0)])
def test_bad_parameters_are_refused(options):
    with pytest.raises(ValueError):
        HNSWIndex(**options)
    with pytest.raises(ValueError):
        ExactIndex(0)


def test_index_and_encoding_are_chosen_in_the_config(compose):
    from hydra.errors import ConfigCompositionException
    from hydra.utils import instantiate

    from harness.retrievers.encoding import RayDataEncoding

    dense = instantiate(compose(["retriever=dense", "retriever.index=hnsw", "retriever.indexes.hnsw.ef_search=300",
                                 "retriever.encoding=ray"]).retriever)
    assert isinstance(dense.vector_index, HNSWIndex) and dense.vector_index.ef_search == 300
    assert isinstance(dense.encoding, RayDataEncoding)
    hybrid = instantiate(compose(["retriever=hybrid", "retriever.dense.index=ivf"]).retriever)
    assert isinstance(hybrid.retrievers[1].vector_index, IVFIndex)
    assert isinstance(instantiate(compose(["retriever=dense"]).retriever).vector_index, ExactIndex)
    with pytest.raises(ConfigCompositionException, match="retriever.index"):
        compose(["retriever=dense", "retriever.index=hsnw"])


def test_index_memory_is_the_vectors_or_the_built_index(data, tmp_path):
    vectors, _ = data
    assert ExactIndex().searcher(vectors, "k", DiskCache(tmp_path)).nbytes() == 2000 * 32 * 4
    flat = HNSWIndex(m=16, ef_construction=100, ef_search=64).searcher(vectors, "k", DiskCache(tmp_path)).nbytes()
    pq = IVFIndex(nlist=32, nprobe=8, train_size=2000, pq_m=8).searcher(vectors, "k", DiskCache(tmp_path)).nbytes()
    assert flat > 2000 * 32 * 4 > 3 * pq  # the graph adds to the vectors; 8-byte codes (and codebooks) take less
