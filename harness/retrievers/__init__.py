"""Retrievers: index chunks, then return each query's top chunks with scores."""

from harness.retrievers.base import Retriever, ScoredChunks

__all__ = ["Retriever", "ScoredChunks"]
