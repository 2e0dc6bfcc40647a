"""Plain records every loader produces and every later stage consumes."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


class DatasetError(ValueError):
    """A dataset file is missing or malformed; the message names the file, line and field."""


@dataclass(frozen=True)
class Document:
    id: str
    text: str
    title: str = ""


@dataclass(frozen=True)
class Question:
    """One evaluation question.

    ``relevant`` maps gold document ids to graded relevance (BEIR qrels) or to 1 for the
    single needle document of a questions.jsonl record.
    """

    id: str
    text: str
    relevant: dict[str, int] = field(default_factory=dict)
    key_facts: tuple[str, ...] = ()
    ground_truth: str | None = None
    # Every accepted gold answer (SQuAD has several); answer metrics take the best match.
    answers: tuple[str, ...] = ()
    expected_answer: str | None = None
    difficulty: str | None = None
    route: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Dataset:
    """Documents plus questions; ``sha256`` fingerprints the files they were read from."""

    name: str
    documents: tuple[Document, ...]
    questions: tuple[Question, ...]
    sha256: str

    def document_ids(self) -> set[str]:
        return {doc.id for doc in self.documents}
