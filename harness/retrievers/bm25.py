"""BM25 over chunks with the bm25s library."""

from __future__ import annotations

from typing import Any

from harness.cache import Codec, DiskCache, content_key
from harness.chunkers.base import Chunk
from harness.retrievers.base import Retriever, ScoredChunks, indexed_text


def _bm25s():
    """The bm25s module, imported without numba: bm25s imports numba whenever it is installed
    (0.2 s of CPU, a tenth of a cached re-run's imports), though only its ``backend="numba"``
    uses it; the harness searches with the numpy backend (bm25s's default), so numba is kept
    out of that import (and stays importable for anything else)."""
    import sys

    if "bm25s" not in sys.modules and "numba" not in sys.modules:
        sys.modules["numba"] = None  # ``import numba`` raises ImportError: bm25s takes its numpy path
        try:
            import bm25s
        finally:
            del sys.modules["numba"]
    import bm25s

    return bm25s


def _save_index(model, folder) -> None:
    model.save(str(folder), allow_pickle=False, show_progress=False)


def _load_index(folder):
    return _bm25s().BM25.load(str(folder), allow_pickle=False, show_progress=False)


def _map_index(folder):
    return _bm25s().BM25.load(str(folder), allow_pickle=False, show_progress=False, mmap=True)


# bm25s's own format: JSON parameters and vocabulary, numpy arrays read without pickle.
BM25_CODEC = Codec(_save_index, _load_index)
# The same entry with its score matrix memory-mapped: pages are read from disk as queries need them.
BM25_MAPPED_CODEC = Codec(_save_index, _map_index)


class BM25Retriever(Retriever):
    """Sparse lexical retrieval.

    Args:
        top_k: chunks returned per query.
        k1, b: BM25 saturation and length normalisation.
        method: bm25s scoring variant (``lucene``, ``robertson``, ``atire``, ``bm25l``, ``bm25+``).
        stemmer: a PyStemmer (Snowball) language such as ``english``, or null for none.
        stopwords: a bm25s stopword list name such as ``en``, or null for none.
        include_title: index ``title + " " + text``.
        mmap: search the cached index memory-mapped (large corpora: the score matrix stays on disk).
    """

    def __init__(self, top_k: int, k1: float, b: float, method: str = "lucene",
                 stemmer: str | None = "english", stopwords: str | None = "en",
                 include_title: bool = True, mmap: bool = False) -> None:
        super().__init__(top_k)
        if k1 < 0 or not 0 <= b <= 1:
            raise ValueError(f"k1 must be >= 0 and b in [0, 1], got k1={k1}, b={b}")
        self.k1, self.b, self.method = k1, b, method
        self.stemmer_language, self.stopwords = stemmer, stopwords
        self.include_title, self.mmap = include_title, mmap
        self._index = None
        self._size = 0
        self._key: str | None = None
        # k -> query -> its chunks, for the index of ``_key``: the next round of a race searches
        # the questions of the rounds before again (each query is scored on its own, so alike)
        self._searched: dict[int, dict[str, ScoredChunks]] = {}

    def _stemmer(self):
        if not self.stemmer_language:
            return None
        import Stemmer

        return Stemmer.Stemmer(self.stemmer_language)

    def _tokenize(self, texts: list[str]):
        return _bm25s().tokenize(texts, stopwords=self.stopwords or None, stemmer=self._stemmer(),
                              show_progress=False)

    def index(self, chunks: list[Chunk], corpus_key: str, cache: DiskCache) -> None:
        bm25s = _bm25s()

        def build():
            model = bm25s.BM25(k1=self.k1, b=self.b, method=self.method)
            model.index(self._tokenize([indexed_text(c, self.include_title) for c in chunks]),
                        show_progress=False)
            return model

        key = content_key(corpus_key, self.fingerprint(), bm25s.__version__)
        if key != self._key:
            self._key, self._searched = key, {}
        if not self.mmap:
            self._index = cache.get_or_build("bm25", key, build, BM25_CODEC)
        else:  # a fresh build is dropped once stored, then searched mapped like a cached one
            self._index = cache.get("bm25", key, BM25_MAPPED_CODEC)
            if self._index is None:
                self._index = build()
                cache.put("bm25", key, self._index, BM25_CODEC)
                if cache.enabled:
                    self._index = _map_index(cache.entry("bm25", key))
        self._size = len(chunks)

    def search(self, queries: list[str], k: int | None = None) -> list[ScoredChunks]:
        if self._index is None:
            raise RuntimeError("index() must be called before search()")
        k = min(k or self.top_k, self._size)
        searched = self._searched.setdefault(k, {})
        todo = [query for query in dict.fromkeys(queries) if query not in searched]
        if todo:
            ids, scores = self._index.retrieve(self._tokenize(todo), k=k, show_progress=False, n_threads=0)
            # bm25s returns chunks with a zero score when fewer match; they carry no evidence.
            searched.update((query, [(int(i), float(s)) for i, s in zip(row_ids, row_scores) if s > 0])
                            for query, row_ids, row_scores in zip(todo, ids, scores))
        return [list(searched[query]) for query in queries]

    def index_bytes(self) -> int | None:
        """The score matrix's arrays (sparse: data, indices, indptr); the vocabulary is left out."""
        if self._index is None:
            return None
        return sum(int(value.nbytes) for value in self._index.scores.values() if hasattr(value, "nbytes"))

    def fingerprint(self) -> dict[str, Any]:
        return {"retriever": "bm25", "k1": self.k1, "b": self.b, "method": self.method,
                "stemmer": self.stemmer_language, "stopwords": self.stopwords,
                "include_title": self.include_title}
