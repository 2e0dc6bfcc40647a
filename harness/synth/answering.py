"""Answerability and dependence on the passage: the generator answers the question with only its
source passage(s) in the prompt, or with none, asked as a run asks (the ``prompt`` group's
``with_context`` and ``no_context`` templates); token F1 with the gold answer (SQuAD's, as
``answer/f1``) says whether it answered."""

from __future__ import annotations

from typing import Any

from harness.data.records import Question
from harness.generators.cached import generate_cached
from harness.metrics.answer import f1
from harness.synth.filter import Filter
from harness.synth.records import Candidate, Tools


class _AnswerFilter(Filter):
    """Scores: ``f1`` of the generator's ``answer``; ``error`` when the generation failed."""

    condition = ""

    def __init__(self, enabled: bool, answered_f1: float) -> None:
        super().__init__(enabled)
        if not 0.0 <= answered_f1 <= 1.0:
            raise ValueError(f"synth.filters.{self.name}.answered_f1 must be between 0 and 1, got {answered_f1}")
        self.answered_f1 = float(answered_f1)

    def check(self, tools: Tools) -> None:
        tools.require_generator(f"synth.filters.{self.name}")
        if tools.prompt is None:
            raise ValueError(f"synth.filters.{self.name} needs the prompt group's templates")

    def settings(self) -> dict[str, Any]:
        return {"answered_f1": self.answered_f1, "condition": self.condition}

    def score(self, candidates: list[Candidate], tools: Tools) -> list[dict[str, Any]]:
        if not candidates:
            return []
        generator = tools.require_generator(f"synth.filters.{self.name}")
        requests = [tools.prompt.render(Question(id=str(i), text=c.question),
                                        list(c.passages) if self.condition == "with_context" else [], self.condition)
                    for i, c in enumerate(candidates)]
        scores = []
        for candidate, reply in zip(candidates, generate_cached(generator, requests, tools.cache), strict=True):
            if reply.failed:
                scores.append({"passed": False, "error": reply.error})
                continue
            value = f1(reply.text, candidate.answer)
            scores.append({"f1": round(value, 4), "answer": reply.text, "passed": self.keeps(value)})
        return scores

    def keeps(self, value: float) -> bool:
        raise NotImplementedError


class AnswerabilityFilter(_AnswerFilter):
    """Keeps a question the generator answers from its source passage(s) alone: F1 >= ``answered_f1``."""

    name = "answerability"
    condition = "with_context"

    def keeps(self, value: float) -> bool:
        return value >= self.answered_f1


class ContextDependenceFilter(_AnswerFilter):
    """Keeps a question the generator does not answer without a passage: F1 < ``answered_f1``."""

    name = "context_dependence"
    condition = "no_context"

    def keeps(self, value: float) -> bool:
        return value < self.answered_f1
