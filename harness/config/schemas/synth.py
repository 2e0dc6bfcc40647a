"""Schemas of the ``synth`` group (``harness synth``): the writer of each kind and the filters."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Dict, List, Optional

from omegaconf import MISSING

from harness.config.schemas.base import TargetSchema


class SpanKind(StrEnum):
    """The salient spans a cloze question asks about."""

    number_unit = "number_unit"
    date = "date"
    name = "name"


class Difficulty(StrEnum):
    """Seed 004's ``difficulty`` of a question."""

    easy = "easy"
    medium = "medium"
    hard = "hard"


class RoundTripLevel(StrEnum):
    """What the round trip must find: the source passage itself, or its document."""

    passage = "passage"
    document = "document"


@dataclass
class RoundTripSchema(TargetSchema):
    enabled: bool = MISSING
    top_k: int = MISSING
    level: RoundTripLevel = MISSING


@dataclass
class AnswerFilterSchema(TargetSchema):
    enabled: bool = MISSING
    answered_f1: float = MISSING


@dataclass
class DuplicatesSchema(TargetSchema):
    enabled: bool = MISSING
    max_cosine: float = MISSING
    model: str = MISSING
    device: str = MISSING
    batch_size: int = MISSING


@dataclass
class FiltersSchema:
    roundtrip: RoundTripSchema = field(default_factory=RoundTripSchema)
    answerability: AnswerFilterSchema = field(default_factory=AnswerFilterSchema)
    context_dependence: AnswerFilterSchema = field(default_factory=AnswerFilterSchema)
    duplicates: DuplicatesSchema = field(default_factory=DuplicatesSchema)


@dataclass
class ClozeWriterSchema(TargetSchema):
    spans: List[SpanKind] = MISSING
    min_words: int = MISSING
    max_words: int = MISSING
    wh: Dict[str, str] = MISSING
    difficulty: Dict[str, Difficulty] = MISSING


@dataclass
class LLMWriterSchema(TargetSchema):
    system: Optional[str] = None
    single: str = MISSING
    pair: str = MISSING
    multi_hop: float = MISSING
    pair_top_k: int = MISSING
    passage_chars: int = MISSING
    min_question_words: int = MISSING
    max_answer_words: int = MISSING
    difficulty: Dict[str, Difficulty] = MISSING


@dataclass
class SynthSchema(TargetSchema):
    _convert_: str = "all"
    writer: Any = MISSING
    filters: FiltersSchema = field(default_factory=FiltersSchema)
    seed: int = MISSING
    batch_size: int = MISSING
    max_failed_fraction: float = MISSING


@dataclass
class ClozeSynthSchema(SynthSchema):
    writer: ClozeWriterSchema = field(default_factory=ClozeWriterSchema)


@dataclass
class LLMSynthSchema(SynthSchema):
    writer: LLMWriterSchema = field(default_factory=LLMWriterSchema)


OPTIONS = {"cloze": ClozeSynthSchema, "llm": LLMSynthSchema}
