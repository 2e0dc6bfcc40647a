"""An app's contexts placed among the corpus's chunks, so retrieval is scored as the harness's own.

A context whose ``doc_id`` is a chunk id is that chunk; one with the text of a chunk (of its
``doc_id``'s document, when it names one) is that chunk; else one whose ``doc_id`` names a document
is a span of that document, and one without an id a span of the document that holds it (:class:`harness.data.gold_passages.PassageMatcher`), else a passage of no
known document (``unmatched:<hash>``), which no gold source can match.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

from harness.apps.replies import AppContext
from harness.chunkers.base import Chunk
from harness.data.gold_passages import PassageMatcher, normalise
from harness.data.records import Document

UNMATCHED = "unmatched:"


class ContextPlacer:
    """Turns contexts into chunks; ``added`` holds those that were not chunks of the corpus already."""

    def __init__(self, documents: Sequence[Document], chunks: Sequence[Chunk], min_overlap: float) -> None:
        self.documents = {doc.id: doc for doc in documents}
        self.chunk_ids = {chunk.id: chunk for chunk in chunks}
        self.by_text: dict[str, Chunk] = {}
        for chunk in chunks:
            self.by_text.setdefault(normalise(chunk.text), chunk)
        self.matcher = PassageMatcher(documents, min_overlap)
        self.added: dict[str, Chunk] = {}

    def chunk(self, context: AppContext) -> Chunk:
        if context.doc_id is not None and context.doc_id in self.chunk_ids:
            return self.chunk_ids[context.doc_id]
        same = self.by_text.get(normalise(context.text))
        if same is not None and context.doc_id in (None, same.doc_id):
            return same
        if context.doc_id is not None:
            return self._span(context.doc_id, context.text)
        found = self.matcher.documents_of(context.text)
        return self._span(found[0] if found else None, context.text)

    def _span(self, doc_id: str | None, text: str) -> Chunk:
        digest = hashlib.sha256(text.encode()).hexdigest()[:12]
        doc_id = doc_id if doc_id is not None else f"{UNMATCHED}{digest}"
        chunk_id = f"{doc_id}@app:{digest}"
        if chunk_id not in self.added:
            document = self.documents.get(doc_id)
            start = document.text.find(text) if document is not None else -1
            start, end = (start, start + len(text)) if start >= 0 else (0, len(text))
            self.added[chunk_id] = Chunk(id=chunk_id, doc_id=doc_id, text=text, start=start, end=end,
                                         title=document.title if document is not None else "")
        return self.added[chunk_id]
