"""The generator interface and its records."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class GenerationRequest:
    """One question to answer: chat messages rendered from the YAML prompt template."""

    question_id: str
    messages: tuple[dict[str, str], ...]
    condition: str = "with_context"  # or "no_context" (seed 004)


# ``Generation.extra`` flag: the answer came from a system with its own retrieval that did not
# report its contexts, so nothing can be checked against them.
CONTEXTS_UNKNOWN = "contexts_unknown"
# ``Generation.extra`` flag: the answer came from an app (harness.apps) that failed or gave no contexts,
# so there is no ranking of its own to score (retrieval and key-fact metrics are left out).
NO_RANKING = "no_ranking"
# ``Generation.extra`` key: the dollar cost the system reported for the answer itself.
REPORTED_COST = "cost_usd"
# Generation.extra flag: no prediction for the question (predictions on_missing=zero); EM = F1 = 0.
MISSING_PREDICTION = "missing_prediction"
# Generation.extra flag: a failed answer scored as a miss (app.on_failure, generation.on_failure =
# miss): every answer metric of an empty answer (EM = F1 = ROUGE-L = 0, BERTScore of nothing).
FAILED_AS_MISS = "failed_as_miss"
# ``Generation.extra`` keys of a locally batched answer: the wall time of the batch it was decoded
# in and that batch's size (its per-request latency was not measured).
BATCH_SECONDS = "batch_seconds"
BATCH_SIZE = "batch_size"


@dataclass
class Generation:
    """One answer with its cost and timing; ``error`` says why when generation failed.

    A failed question keeps ``text=""`` and ``error`` set: it is recorded, never silently scored.
    ``contexts``/``route`` are filled only by generators that bring their own retrieval
    (the ``predictions`` generator), ``metrics`` only by a predictions file that carries the
    system's own scores of the answer (name -> number).
    """

    text: str
    input_tokens: int | None = None
    output_tokens: int | None = None
    ttft_seconds: float | None = None
    latency_seconds: float | None = None
    error: str | None = None
    contexts: list[str] | None = None
    route: str | None = None
    metrics: dict[str, float] | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def failed(self) -> bool:
        return self.error is not None

    @property
    def contexts_unknown(self) -> bool:
        return bool(self.extra.get(CONTEXTS_UNKNOWN))

    @property
    def tokens_per_second(self) -> float | None:
        """Output tokens per second after the first token (decode speed)."""
        if not self.output_tokens or self.latency_seconds is None or self.ttft_seconds is None:
            return None
        decode = self.latency_seconds - self.ttft_seconds
        return self.output_tokens / decode if decode > 0 else None


class Generator(ABC):
    """Answers requests. ``model`` names the model for pricing and cache keys."""

    model: str = ""
    enabled = True
    # Whether answers go through the disk cache (harness.generators.cached); False for answers
    # that are read, not computed (a predictions file is its own cache).
    cacheable = True
    # The pricing-table row this model is billed as (``conf/pricing``), or None.
    price_as: str | None = None

    @abstractmethod
    def generate(self, requests: list[GenerationRequest]) -> list[Generation]:
        """One Generation per request, in order; a failing request yields a Generation with
        ``error`` set instead of raising, so one bad question never stops a run."""

    def check_questions(self, question_ids: set[str]) -> None:
        """Checks what the generator brings against the dataset's question ids (before a run starts)."""

    @abstractmethod
    def fingerprint(self) -> dict[str, Any]:
        """Model, revision or file hash, and decoding parameters (the cache key's config part)."""


class NoGenerator(Generator):
    """``generator=none``: a retrieval-only run."""

    enabled = False

    def __init__(self, price_as: str | None = None) -> None:
        self.price_as = price_as

    def generate(self, requests: list[GenerationRequest]) -> list[Generation]:
        raise RuntimeError("generator=none generates nothing")

    def fingerprint(self) -> dict[str, Any]:
        return {"generator": "none"}
