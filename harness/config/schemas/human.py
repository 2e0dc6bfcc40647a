"""Schemas of the ``human`` group: annotation rubric, sample and agreement settings."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional

from omegaconf import MISSING

from harness.config.schemas.base import TargetSchema
from harness.config.schemas.choices import Direction, SampleStrategy


@dataclass
class JudgeColumnSchema:
    column: str = MISSING
    min: float = MISSING
    max: float = MISSING


@dataclass
class HumanDimensionSchema:
    prompt: str = MISSING
    levels: List[Any] = MISSING
    rubric: List[str] = MISSING
    judge: Optional[JudgeColumnSchema] = None


@dataclass
class HumanSampleSchema:
    strategy: SampleStrategy = MISSING
    n: int = MISSING
    seed: int = MISSING
    worst_column: str = MISSING
    worst_direction: Direction = MISSING
    category_prefix: str = MISSING
    shuffle: bool = MISSING


@dataclass
class KappaBandSchema:
    min: Optional[float] = MISSING
    label: str = MISSING


@dataclass
class HumanEvalSchema(TargetSchema):
    _convert_: str = "all"
    dimensions: Dict[str, HumanDimensionSchema] = MISSING
    sample: HumanSampleSchema = field(default_factory=HumanSampleSchema)
    landis_koch: List[KappaBandSchema] = MISSING
    kappa_decimals: int = MISSING
    target_kappa: float = MISSING
    confidence: float = MISSING
    min_pairs: int = MISSING
    experiment_name: str = MISSING


OPTIONS = {"default": HumanEvalSchema}
