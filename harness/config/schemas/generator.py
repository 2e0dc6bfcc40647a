"""Schemas of the answering side: the ``generator``, ``prompt`` and ``pricing`` groups and the
root ``generation`` block."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, List, Optional

from omegaconf import MISSING

from harness.config.schemas.base import ApiClientSchema, LocalModelSchema, TargetSchema
from harness.config.schemas.choices import OnFailure, OnMissing, Stratum


@dataclass
class NoGeneratorSchema(TargetSchema):
    price_as: Optional[str] = None


@dataclass
class LocalGeneratorSchema(LocalModelSchema):
    price_as: Optional[str] = None


@dataclass
class ApiGeneratorSchema(ApiClientSchema):
    price_as: Optional[str] = None


@dataclass
class PredictionsGeneratorSchema(TargetSchema):
    path: str = MISSING
    on_missing: OnMissing = MISSING
    price_as: Optional[str] = None


@dataclass
class PromptSchema(TargetSchema):
    system: Optional[str] = None
    with_context: str = MISSING
    no_context: str = MISSING
    context_item: str = MISSING
    context_separator: str = MISSING


@dataclass
class GenerationSchema:
    """Seed 004's conditions, how many retrieved chunks enter the prompt, and an optional sample."""

    conditions: List[str] = MISSING
    contexts: Optional[int] = None
    sample: Optional[int] = None
    stratify: Optional[Stratum] = None
    seed: int = MISSING
    # More than this share of failed answers fails the job (exit 1).
    max_failed_fraction: float = MISSING
    # Answered questions generated one at a time (time to first token, latency); the rest batched.
    ttft_sample: int = MISSING
    # A failed answer: miss (EM and F1 0) or exclude (no answer metric; out of the paired comparison).
    on_failure: OnFailure = MISSING


@dataclass
class Price:
    input: float = MISSING
    output: float = MISSING


@dataclass
class PricingSchema:
    table: Dict[str, Price] = field(default_factory=dict)


OPTIONS = {"none": NoGeneratorSchema, "local": LocalGeneratorSchema, "openai": ApiGeneratorSchema,
           "anthropic": ApiGeneratorSchema, "predictions": PredictionsGeneratorSchema}
PROMPT_OPTIONS = {"default": PromptSchema}
