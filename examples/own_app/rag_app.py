"""A RAG application of your own: BM25 (bm25s) over a folder of markdown files, and an extractive
answer (the retrieved sentence that shares the most words with the question)."""

import functools
import re
from pathlib import Path

import bm25s

DOCS = Path(__file__).parent / "docs"


@functools.cache
def _index():
    paths = sorted(DOCS.glob("*.md"))
    texts = [path.read_text(encoding="utf-8") for path in paths]
    retriever = bm25s.BM25()
    retriever.index(bm25s.tokenize(texts, stopwords="en", show_progress=False), show_progress=False)
    return retriever, [path.stem for path in paths], texts


def answer(question: str, top_k: int = 2) -> dict:
    retriever, ids, texts = _index()
    query = bm25s.tokenize([question], stopwords="en", show_progress=False)
    hits, scores = retriever.retrieve(query, k=min(top_k, len(ids)), show_progress=False)
    contexts = [{"text": texts[i], "doc_id": ids[i], "score": float(s)} for i, s in zip(hits[0], scores[0])]
    return {"answer": best_sentence(question, [c["text"] for c in contexts]), "contexts": contexts}


def best_sentence(question: str, texts: list[str]) -> str:
    """The sentence of the texts that shares the most words with the question."""
    words = set(re.findall(r"\w+", question.lower()))
    sentences = [s for text in texts for s in re.split(r"(?<=[.!?])\s+|\n+", text) if s.strip()]
    return max(sentences, key=lambda s: len(words & set(re.findall(r"\w+", s.lower())))).strip()
