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
class AnswerCriteria:
    """What a good answer must (not) do beyond matching the gold answer (seed 001's ``answer_criteria``).

    ``clarification_expected``: the right answer asks the user to clarify (an ambiguous question).
    ``out_of_scope``: the right answer declines (a question the system must not answer).
    ``forbidden_keywords``: words whose presence in an answer marks a hallucination.
    ``min_semantic_similarity``: this question's minimum answer/expected-answer similarity, for
    routes whose profile lets a question set it (seed 001: RAG routes, default 0.75).
    """

    clarification_expected: bool = False
    out_of_scope: bool = False
    forbidden_keywords: tuple[str, ...] = ()
    min_semantic_similarity: float | None = None


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
    answer_criteria: AnswerCriteria = field(default_factory=AnswerCriteria)
    metadata: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Dataset:
    """Documents plus questions; ``sha256`` fingerprints the files they were read from, ``source``
    names them (the questions file or dataset folder; a hub dataset's id)."""

    name: str
    documents: tuple[Document, ...]
    questions: tuple[Question, ...]
    sha256: str
    source: str = ""

    def document_ids(self) -> set[str]:
        return {doc.id for doc in self.documents}
