"""An app's contexts placed among the corpus's chunks, so retrieval is scored as the harness's own.

A context names its document in the fields its framework fills (:mod:`harness.apps.replies`:
a LangChain loader's ``source`` path, LlamaIndex's ``file_path`` or ``file_name``, Haystack's
``meta``, your own ``doc_id``); each name is tried in turn: a chunk id is that chunk, a document
id that document, and a file path the document of the documents folder at its relative path (the
path's last parts) or, when only one has it, its stem. A context whose names match nothing is
matched by its text: a chunk with the same text is that chunk, else the document that holds it
(:class:`harness.data.gold_passages.PassageMatcher`) gets it as a span, else it is a span of the
document it named first (outside the corpus), or, naming none, a passage of no known document
(``unmatched:<hash>``), which no gold source can match. :meth:`ContextPlacer.report`
says how many contexts matched, and which names matched nothing.
"""

from __future__ import annotations

import hashlib
from collections import Counter, defaultdict
from collections.abc import Sequence
from pathlib import PurePosixPath

from harness.apps.replies import AppContext
from harness.chunkers.base import Chunk
from harness.data.gold_passages import PassageMatcher, normalise
from harness.data.records import Document

UNMATCHED = "unmatched:"
NAMES_SHOWN = 5  # names that matched no document, shown in the warning


class ContextPlacer:
    """Turns contexts into chunks; ``added`` holds those that were not chunks of the corpus already."""

    def __init__(self, documents: Sequence[Document], chunks: Sequence[Chunk], min_overlap: float) -> None:
        self.documents = {doc.id: doc for doc in documents}
        self.by_stem: dict[str, list[str]] = defaultdict(list)
        for doc_id in self.documents:
            self.by_stem[PurePosixPath(doc_id).name].append(doc_id)
        self.chunk_ids = {chunk.id: chunk for chunk in chunks}
        self.by_text: dict[str, Chunk] = {}
        for chunk in chunks:
            self.by_text.setdefault(normalise(chunk.text), chunk)
        self.matcher = PassageMatcher(documents, min_overlap)
        self.added: dict[str, Chunk] = {}
        self.placed = 0
        self.matched = 0  # contexts placed in a known document
        self.unknown_names: Counter[str] = Counter()  # names a context gave that matched no document

    def chunk(self, context: AppContext) -> Chunk:
        chunk = self._place(context)
        self.placed += 1
        self.matched += chunk.doc_id in self.documents
        return chunk

    def _place(self, context: AppContext) -> Chunk:
        doc_id = None
        for name in context.names:
            if name in self.chunk_ids:
                return self.chunk_ids[name]
            doc_id = self.document_of(name)
            if doc_id is not None:
                break
        if context.names and doc_id is None:
            self.unknown_names[context.names[0]] += 1
        same = self.by_text.get(normalise(context.text))
        if same is not None and doc_id in (None, same.doc_id):
            return same
        if doc_id is not None:
            return self._span(doc_id, context.text)
        found = self.matcher.documents_of(context.text)
        if found:
            return self._span(found[0], context.text)
        # a document outside the loaded corpus, if any: its name is still what a gold id can match
        return self._span(context.names[0] if context.names else None, context.text)

    def document_of(self, name: str) -> str | None:
        """The document ``name`` names: its id, or the document at a file path's relative path or stem.

        >>> placer = ContextPlacer([Document("france", "Paris."), Document("eu/spain", "Madrid.")], [], 0.8)
        >>> [placer.document_of(n) for n in ("france", "/data/docs/france.md", "docs/eu/spain.md", "spain.md", "x.md")]
        ['france', 'france', 'eu/spain', 'eu/spain', None]
        """
        if name in self.documents:
            return name
        path = PurePosixPath(name.replace("\\", "/"))
        parts = path.with_suffix("").parts if path.suffix else path.parts
        for start in range(len(parts)):  # the longest relative path first
            tail = "/".join(parts[start:])
            if tail in self.documents:
                return tail
        same_stem = self.by_stem.get(parts[-1]) if parts else None
        return same_stem[0] if same_stem is not None and len(same_stem) == 1 else None

    def report(self) -> str | None:
        """A warning when the contexts matched no document at all (every retrieval metric would be
        0 for a reason other than the app's retrieval), naming the names they gave; else None."""
        if not self.placed or self.matched:
            return None
        names = ", ".join(repr(name) for name, _ in self.unknown_names.most_common(NAMES_SHOWN))
        given = (f"the names they gave ({len(self.unknown_names)} distinct, e.g. {names}) are not document ids "
                 f"(e.g. {', '.join(repr(d) for d in list(self.documents)[:3])}) nor their files' paths, "
                 if self.unknown_names else "they named no document, ")
        return (f"none of the app's {self.placed} contexts matched a document: {given}and their texts are in no "
                f"document; every retrieval metric is 0 for that reason (give each context the document's id "
                f"as doc_id, or its file's path as metadata source)")

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
