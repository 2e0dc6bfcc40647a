"""What a writer produces and what the filters and the synthesizer pass along."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from harness.cache import DiskCache
from harness.chunkers.base import Chunk


@dataclass(frozen=True)
class Candidate:
    """One written question before filtering.

    Attributes:
        question: the question text.
        answer: its gold answer (short: a span, a phrase).
        passages: the passages it was written from, its gold sources (two for a multi-hop question).
        kind: ``cloze``, ``llm`` or ``multi_hop``.
        key_facts: facts a full answer states (a cloze question's span), when the kind has them.
        expected_answer: a full-sentence answer, when the kind has one (a cloze question's sentence).
        detail: what the writer adds to the line's provenance (the span's type, the raw reply).
    """

    question: str
    answer: str
    passages: tuple[Chunk, ...]
    kind: str
    key_facts: tuple[str, ...] = ()
    expected_answer: str | None = None
    detail: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Written:
    """A writer's outcome for one passage group: a candidate, or why there is none.

    ``failed`` tells a failed call or an unusable reply (counted against ``max_failed_fraction``)
    from a passage that simply holds nothing to ask (a cloze passage without a salient span).
    """

    candidate: Candidate | None
    reason: str | None = None
    failed: bool = False


@dataclass
class Scored:
    """A candidate with each filter's scores (filter name -> its figures and ``passed``)."""

    candidate: Candidate
    scores: dict[str, dict[str, Any]] = field(default_factory=dict)

    def passed(self, names) -> bool:
        """Whether every filter in ``names`` scored it and let it through."""
        return all(self.scores.get(name, {}).get("passed") is True for name in names)


@dataclass
class Tools:
    """What writers and filters use besides their own settings.

    Attributes:
        cache: the disk cache (generations go through it, as in a run).
        chunks: every passage of the corpus.
        generator: the configured generator (None or disabled: only what needs no model can run).
        prompt: the run's prompt template (answerability and context dependence ask as a run asks).
        retriever: the configured retriever, indexed over ``chunks`` (None when nothing searches).
    """

    cache: DiskCache
    chunks: list[Chunk]
    generator: Any = None
    prompt: Any = None
    retriever: Any = None

    def require_generator(self, who: str):
        """The generator, or a ValueError naming ``who`` needs one."""
        if self.generator is None or not getattr(self.generator, "enabled", False):
            raise ValueError(f"{who} needs a generator; choose one (generator=local, generator=openai ...) "
                             f"or turn it off")
        return self.generator

    def require_retriever(self, who: str):
        if self.retriever is None:
            raise ValueError(f"{who} needs the configured retriever, but none was indexed")
        return self.retriever
