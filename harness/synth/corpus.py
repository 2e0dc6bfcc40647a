"""The corpus's passages and index, through the same cache entries a run uses."""

from __future__ import annotations

from harness.cache import DiskCache, content_key
from harness.chunkers.base import CHUNKS_CODEC, Chunk, Chunker
from harness.data.records import Dataset


def passages(dataset: Dataset, chunker: Chunker, cache: DiskCache) -> list[Chunk]:
    """``dataset``'s documents chunked by ``chunker``, under the key the pipeline's chunk stage uses
    (:func:`harness.stages.pipeline.run_pipeline`), so a run of the same corpus reuses them.

    Raises:
        ValueError: the dataset has no documents, or they chunk to nothing.
    """
    if not dataset.documents:
        raise ValueError(f"dataset '{dataset.name}' has no documents to write questions from")
    documents_key = content_key([(d.id, d.title, d.text) for d in dataset.documents])
    chunks = cache.get_or_build("chunks", content_key(documents_key, chunker.fingerprint()),
                                lambda: chunker.chunk(dataset.documents), CHUNKS_CODEC)
    if not chunks:
        raise ValueError(f"the documents of dataset '{dataset.name}' chunk to no passages (all blank?)")
    return chunks


def index(retriever, chunks: list[Chunk], cache: DiskCache):
    """``retriever`` indexed over ``chunks`` (from the cache when a run indexed them before)."""
    retriever.index(chunks, content_key([(c.id, c.title, c.text) for c in chunks]), cache)
    return retriever
