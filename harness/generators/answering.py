"""The answering stage: which questions get answers, under which conditions, with which prompt."""

from __future__ import annotations

import random
from dataclasses import dataclass

from harness.cache import DiskCache
from harness.generators.base import Generator
from harness.generators.cached import generate_cached
from harness.generators.prompts import CONDITIONS, PromptTemplate
from harness.results import QuestionRecord


@dataclass
class Answering:
    """Args:
        generator: the configured generator.
        prompt: the YAML prompt template.
        conditions: ``with_context`` (the pipeline under test) and/or ``no_context`` (seed 004's
            baseline: the generator answers without retrieval).
        contexts: how many retrieved chunks go into the prompt (null: all of them).
        sample: answer only this many questions, drawn with ``seed`` (null: all).
        seed: the sample's seed.
    """

    generator: Generator
    prompt: PromptTemplate
    conditions: list[str]
    contexts: int | None
    sample: int | None
    seed: int

    def __post_init__(self) -> None:
        unknown = [c for c in self.conditions if c not in CONDITIONS]
        if unknown or not self.conditions:
            raise ValueError(f"generation.conditions must be a non-empty subset of {CONDITIONS}, got {self.conditions}")
        if self.sample is not None and self.sample < 1:
            raise ValueError(f"generation.sample must be >= 1 or null, got {self.sample}")

    def selected(self, records: list[QuestionRecord]) -> list[QuestionRecord]:
        """The seeded sample of records that get answers (all if ``sample`` is null)."""
        if self.sample is None or self.sample >= len(records):
            return list(records)
        chosen = set(random.Random(self.seed).sample(range(len(records)), self.sample))
        return [r for i, r in enumerate(records) if i in chosen]

    def answer(self, records: list[QuestionRecord], cache: DiskCache) -> None:
        """Fills ``generation`` (with context) and ``baseline`` (no context) of the sampled records."""
        chosen = self.selected(records)
        for condition in self.conditions:
            requests = [self.prompt.render(r.question, r.chunks[:self.contexts] if condition == "with_context" else [],
                                           condition) for r in chosen]
            for record, generation in zip(chosen, generate_cached(self.generator, requests, cache)):
                if condition == "with_context":
                    record.generation = generation
                else:
                    record.baseline = generation
