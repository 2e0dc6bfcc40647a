"""BM25 searched memory-mapped (retriever.mmap=true): the same results as in memory, from the same entry."""

from __future__ import annotations

import numpy as np

from harness.cache import DiskCache
from harness.retrievers.bm25 import BM25Retriever
from tests.retrievers.test_retrievers import QUERIES, chunks, corpus_key  # noqa: F401 - chunks is a fixture


def test_mapped_index_searches_like_the_in_memory_one(chunks, tmp_path):  # noqa: F811
    cache = DiskCache(tmp_path)
    plain = BM25Retriever(top_k=3, k1=1.2, b=0.75)
    plain.index(chunks, corpus_key(chunks), cache)
    mapped = BM25Retriever(top_k=3, k1=1.2, b=0.75, mmap=True)
    mapped.index(chunks, corpus_key(chunks), cache)
    assert cache.stats == {"bm25/miss": 1, "bm25/hit": 1}  # mmap does not change the entry
    assert isinstance(mapped._index.scores["data"], np.memmap)
    assert mapped.search(QUERIES) == plain.search(QUERIES)


def test_a_fresh_mapped_build_is_searched_from_its_entry(chunks, tmp_path):  # noqa: F811
    mapped = BM25Retriever(top_k=3, k1=1.2, b=0.75, mmap=True)
    mapped.index(chunks, corpus_key(chunks), DiskCache(tmp_path))
    assert isinstance(mapped._index.scores["data"], np.memmap)
    off = BM25Retriever(top_k=3, k1=1.2, b=0.75, mmap=True)
    off.index(chunks, corpus_key(chunks), DiskCache(tmp_path / "off", enabled=False))
    assert off.search(QUERIES) == mapped.search(QUERIES)
