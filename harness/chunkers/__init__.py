"""Chunkers: split documents into chunks that keep their document id and character offsets."""

from harness.chunkers.base import Chunk, Chunker

__all__ = ["Chunk", "Chunker"]
