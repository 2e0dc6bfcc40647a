"""Gold passages given as text (RAGAS ``reference_contexts``, DeepEval ``context``, MLflow
``expected_retrieved_context``) matched to the documents that hold them, so retrieval is scored
against those documents as if their ids had been given.

A passage matches the documents whose text contains it (compared lower-cased, whitespace
collapsed); a passage no document contains matches the one document holding the largest share of
its words, when that share reaches ``min_overlap`` (a passage copied with small edits).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from harness.data.records import Document

_WORD = re.compile(r"\w+")


def normalise(text: str) -> str:
    return " ".join(text.lower().split())


class PassageMatcher:
    """Finds the documents of passages.

    Example:
        >>> docs = [Document("auth", "Tokens expire after 3600  seconds."), Document("db", "The pool holds 100.")]
        >>> PassageMatcher(docs, min_overlap=0.8).documents_of("tokens expire after 3600 seconds")
        ['auth']
    """

    def __init__(self, documents: Sequence[Document], min_overlap: float) -> None:
        if not 0.0 < min_overlap <= 1.0:
            raise ValueError(f"min_overlap must be in (0, 1], got {min_overlap}")
        self.min_overlap = min_overlap
        self._texts = [(doc.id, normalise(doc.text)) for doc in documents]
        self._words: list[tuple[str, set[str]]] | None = None

    def documents_of(self, passage: str) -> list[str]:
        """The ids of the documents holding ``passage``; [] when none does."""
        wanted = normalise(passage)
        if not wanted:
            return []
        found = [doc_id for doc_id, text in self._texts if wanted in text]
        return found or self._closest(wanted)

    def _closest(self, passage: str) -> list[str]:
        if self._words is None:
            self._words = [(doc_id, set(_WORD.findall(text))) for doc_id, text in self._texts]
        words = set(_WORD.findall(passage))
        if not words:
            return []
        share, doc_id = max(((len(words & held) / len(words), doc_id) for doc_id, held in self._words),
                            default=(0.0, None))
        return [doc_id] if doc_id is not None and share >= self.min_overlap else []
