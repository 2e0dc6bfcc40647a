"""The same app built with LlamaIndex: the markdown files read by SimpleDirectoryReader (each
node's metadata holds its ``file_path`` and ``file_name``), LlamaIndex's BM25Retriever, and the
extractive answer of rag_app. It returns the retrieved ``NodeWithScore`` objects as they come;
the harness reads their text and score and matches their files to the documents folder."""

import functools
from pathlib import Path

from llama_index.core import SimpleDirectoryReader
from llama_index.retrievers.bm25 import BM25Retriever

from rag_app import best_sentence

DOCS = Path(__file__).parent / "docs"


@functools.cache
def _retriever(top_k: int) -> BM25Retriever:
    documents = SimpleDirectoryReader(str(DOCS), required_exts=[".md"]).load_data()
    return BM25Retriever.from_defaults(nodes=documents, similarity_top_k=top_k)


def answer(question: str, top_k: int = 2) -> dict:
    nodes = _retriever(top_k).retrieve(question)
    return {"answer": best_sentence(question, [n.text for n in nodes]), "contexts": nodes}
