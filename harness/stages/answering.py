"""The answering stage: which questions get answers, under which conditions, with which prompt."""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from harness.config.schemas.choices import Stratum, values
from harness.cache import DiskCache
from harness.failures import ON_FAILURE, FailureTally, check_fraction
from harness.generators.base import FAILED_AS_MISS, Generator
from harness.generators.cached import generate_cached
from harness.generators.prompts import CONDITIONS, PromptTemplate
from harness.results.records import QuestionRecord
from harness.stages.stage import StageClock


STRATA = values(Stratum)


def allocate(total: int, sizes: list[int]) -> list[int]:
    """Splits ``total`` draws over strata of ``sizes`` in proportion (largest remainder), giving
    every non-empty stratum at least one draw while ``total`` allows, never more than its size.

    >>> allocate(8, [71, 8, 7])
    [6, 1, 1]
    """
    total = min(total, sum(sizes))
    shares = [total * size / sum(sizes) for size in sizes]
    counts = [int(share) for share in shares]
    if total >= sum(1 for size in sizes if size):
        counts = [max(count, 1) if size else 0 for count, size in zip(counts, sizes)]
    while sum(counts) > total:  # the minimum of one was taken from the largest strata
        counts[max(range(len(counts)), key=lambda i: counts[i])] -= 1
    by_remainder = sorted(range(len(sizes)), key=lambda i: shares[i] - int(shares[i]), reverse=True)
    while sum(counts) < total:
        i = next(i for i in by_remainder if counts[i] < sizes[i])
        counts[i] += 1
        by_remainder.remove(i)
        by_remainder.append(i)
    return counts


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
        stratify: a question field (``route``, ``difficulty``) to sample proportionally by, with
            at least one question of every value when ``sample`` allows (null: a simple sample).
        max_failed_fraction: the job fails when more than this share of its answers failed
            (``tally`` after :meth:`answer`; see :mod:`harness.failures`).
        ttft_sample: how many of the answered questions (drawn with ``seed``) are generated one
            request at a time with context, so that a local generator measures their time to first
            token and latency; the others are batched (0: all of them).
        on_failure: what a failed answer (with context) scores: ``miss`` (every answer metric of
            an empty answer: EM = F1 = 0) or ``exclude`` (no answer metric). A question a predictions
            file skipped (``on_missing: skip``) is no failure: it is never scored.
    """

    generator: Generator
    prompt: PromptTemplate
    conditions: list[str]
    contexts: int | None
    sample: int | None
    seed: int
    stratify: str | None = None
    max_failed_fraction: float = 0.5
    ttft_sample: int = 0
    on_failure: str = "miss"
    tally: FailureTally = field(init=False)

    def __post_init__(self) -> None:
        self.max_failed_fraction = check_fraction("generation.max_failed_fraction", self.max_failed_fraction)
        self.tally = FailureTally("generation", self.max_failed_fraction)
        unknown = [c for c in self.conditions if c not in CONDITIONS]
        if unknown or not self.conditions:
            raise ValueError(f"generation.conditions must be a non-empty subset of {CONDITIONS}, got {self.conditions}")
        if self.sample is not None and self.sample < 1:
            raise ValueError(f"generation.sample must be >= 1 or null, got {self.sample}")
        if self.on_failure not in ON_FAILURE:
            raise ValueError(f"generation.on_failure must be one of {list(ON_FAILURE)}, got {self.on_failure!r}")
        if self.ttft_sample < 0:
            raise ValueError(f"generation.ttft_sample must be >= 0, got {self.ttft_sample}")
        if self.stratify is not None and self.stratify not in STRATA:
            raise ValueError(f"generation.stratify must be one of {list(STRATA)} or null, got {self.stratify!r}")

    def selected(self, records: list[QuestionRecord]) -> list[QuestionRecord]:
        """The seeded sample of records that get answers (all if ``sample`` is null)."""
        if self.sample is None or self.sample >= len(records):
            return list(records)
        rng = random.Random(self.seed)
        if self.stratify is None:
            chosen = set(rng.sample(range(len(records)), self.sample))
        else:
            strata: dict[str, list[int]] = {}
            for index, record in enumerate(records):
                strata.setdefault(str(getattr(record.question, self.stratify)), []).append(index)
            chosen = {index for members, count in zip(strata.values(), allocate(self.sample, [len(m) for m in strata.values()]))
                      for index in rng.sample(members, count)}
        return [r for i, r in enumerate(records) if i in chosen]

    def _alone(self, answered: int) -> frozenset[int]:
        """Positions among the ``answered`` questions generated one at a time (``ttft_sample``)."""
        return frozenset(random.Random(self.seed).sample(range(answered), min(self.ttft_sample, answered)))

    def answer(self, records: list[QuestionRecord], cache: DiskCache, clock: StageClock | None = None) -> None:
        """Fills ``generation`` (with context), ``baseline`` (no context) and ``prompts`` of the
        sampled records; ``clock`` hears when each condition's answers were made."""
        chosen = self.selected(records)
        self.tally = FailureTally("generation", self.max_failed_fraction)
        for record in chosen:
            record.prompt_chunk_count = self.contexts
        alone = self._alone(len(chosen))
        ids = [r.question.id for r in chosen]
        for condition in self.conditions:
            requests = [self.prompt.render(r.question, r.prompt_chunks if condition == "with_context" else [],
                                           condition) for r in chosen]
            generations = generate_cached(self.generator, requests, cache,
                                          alone=alone if condition == "with_context" else frozenset(),
                                          timed=clock.timer(ids, condition) if clock else None)
            for record, request, generation in zip(chosen, requests, generations):
                record.prompts[condition] = [dict(message) for message in request.messages]
                skipped = generation.extra.get("skipped")
                if not skipped:  # predictions on_missing=skip: no call was made
                    self.tally.add(generation.error)
                if condition == "with_context" and generation.failed and not skipped and self.on_failure == "miss":
                    generation.extra[FAILED_AS_MISS] = True  # scored as an empty answer
                if condition == "with_context":
                    record.generation = generation
                else:
                    record.baseline = generation
