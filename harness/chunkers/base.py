"""The chunk record and the chunker interface."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import asdict, dataclass
from typing import Any

from harness.cache import json_codec
from harness.data.records import Document


@dataclass(frozen=True)
class Chunk:
    """A span of one document: ``text == document.text[start:end]``."""

    id: str
    doc_id: str
    text: str
    start: int
    end: int
    title: str = ""


CHUNKS_CODEC = json_codec(lambda chunks: [asdict(chunk) for chunk in chunks],
                          lambda rows: [Chunk(**row) for row in rows])


class Chunker(ABC):
    """Splits documents into chunks. Subclasses are pure functions of documents and config."""

    @abstractmethod
    def split(self, document: Document) -> list[Chunk]:
        """Chunks of one document, in document order."""

    @abstractmethod
    def fingerprint(self) -> dict[str, Any]:
        """Everything the output depends on besides the documents (the cache key's config part)."""

    def chunk(self, documents: list[Document] | tuple[Document, ...]) -> list[Chunk]:
        return [chunk for document in documents for chunk in self.split(document)]


def make_chunks(document: Document, spans: list[tuple[int, int]], titles: list[str] | None = None) -> list[Chunk]:
    """Chunks for ``(start, end)`` spans of ``document``; empty or blank spans are dropped."""
    chunks = []
    for index, (start, end) in enumerate(spans):
        text = document.text[start:end]
        if not text.strip():
            continue
        title = titles[index] if titles is not None else document.title
        chunks.append(Chunk(id=f"{document.id}#{len(chunks)}", doc_id=document.id, text=text,
                            start=start, end=end, title=title))
    return chunks


def check_size_and_overlap(size: int, overlap: int) -> None:
    if size < 1:
        raise ValueError(f"size must be >= 1, got {size}")
    if not 0 <= overlap < size:
        raise ValueError(f"overlap must be >= 0 and < size ({size}), got {overlap}")
