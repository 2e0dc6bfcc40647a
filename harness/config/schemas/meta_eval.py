"""Schemas of the ``meta_eval`` group: agreement of metrics and judges with human labels."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import List, Optional

from omegaconf import MISSING

from harness.config.schemas.base import TargetSchema


@dataclass
class BootstrapSchema:
    resamples: int = MISSING
    confidence: float = MISSING
    seed: int = MISSING


@dataclass
class MetaEvalSchema(TargetSchema):
    _convert_: str = "all"
    bootstrap: BootstrapSchema = field(default_factory=BootstrapSchema)
    absolute_scale: Optional[List[float]] = None
    pairwise_scale: List[float] = MISSING
    headline: str = MISSING
    min_pairs: int = MISSING
    experiment_name: str = MISSING


OPTIONS = {"default": MetaEvalSchema}
