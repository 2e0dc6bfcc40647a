"""Prompt templates (their text lives in YAML, ``conf/prompt/``)."""

from __future__ import annotations

from harness.chunkers.base import Chunk
from harness.data.records import Question
from harness.generators.base import GenerationRequest

CONDITIONS = ("with_context", "no_context")


class PromptTemplate:
    """Renders chat messages for a question in one of seed 004's two conditions.

    Templates are ``str.format`` strings: ``with_context`` sees ``{question}`` and ``{context}``,
    ``no_context`` sees ``{question}``; each context passage is rendered with ``context_item``
    (``{rank}``, ``{title}``, ``{text}``) and joined with ``context_separator``.
    """

    def __init__(self, system: str | None, with_context: str, no_context: str, context_item: str,
                 context_separator: str) -> None:
        self.system = system
        self.templates = {"with_context": with_context, "no_context": no_context}
        self.context_item, self.context_separator = context_item, context_separator
        # Fail on a template typo now, not after a model has loaded.
        self.render(Question(id="check", text="q"), [Chunk("c", "d", "t", 0, 1, "title")], "with_context")
        self.render(Question(id="check", text="q"), [], "no_context")

    def render(self, question: Question, chunks: list[Chunk], condition: str) -> GenerationRequest:
        if condition not in CONDITIONS:
            raise ValueError(f"condition must be one of {CONDITIONS}, got {condition!r}")
        context = self.context_separator.join(
            self.context_item.format(rank=rank, title=chunk.title, text=chunk.text)
            for rank, chunk in enumerate(chunks, start=1))
        try:
            content = self.templates[condition].format(question=question.text, context=context)
        except (KeyError, IndexError) as err:
            raise ValueError(f"prompt template '{condition}' has an unknown placeholder {err}") from err
        messages = ([{"role": "system", "content": self.system}] if self.system else [])
        messages.append({"role": "user", "content": content})
        return GenerationRequest(question_id=question.id, messages=tuple(messages), condition=condition)
