"""The same app built with LangChain: the markdown files loaded with DirectoryLoader (each
Document's ``metadata["source"]`` is its file's path), LangChain's BM25Retriever, and the
extractive answer of rag_app. It returns LangChain Documents as they come, under
``source_documents`` (as LangChain's retrieval chains do); the harness reads their text and
matches their paths to the documents folder."""

import functools
import re
from pathlib import Path

from langchain_community.document_loaders import DirectoryLoader, TextLoader
from langchain_community.retrievers import BM25Retriever

from rag_app import best_sentence

DOCS = Path(__file__).parent / "docs"


@functools.cache
def _retriever(top_k: int) -> BM25Retriever:
    documents = DirectoryLoader(str(DOCS), glob="*.md", loader_cls=TextLoader).load()
    # words, lower-cased (the default splits on spaces only: "Berlin?" would not match "Berlin")
    return BM25Retriever.from_documents(documents, k=top_k, preprocess_func=lambda text: re.findall(r"\w+", text.lower()))


def answer(question: str, top_k: int = 2) -> dict:
    documents = _retriever(top_k).invoke(question)
    return {"answer": best_sentence(question, [d.page_content for d in documents]), "source_documents": documents}
