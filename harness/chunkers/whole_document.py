"""One chunk per document."""

from __future__ import annotations

from typing import Any

from harness.chunkers.base import Chunk, Chunker, make_chunks
from harness.data.records import Document


class WholeDocumentChunker(Chunker):
    """Keeps every document whole (the usual setting for BEIR corpora of abstracts)."""

    def split(self, document: Document) -> list[Chunk]:
        return make_chunks(document, [(0, len(document.text))])

    def fingerprint(self) -> dict[str, Any]:
        return {"chunker": "whole_document"}
