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
class AlignSchema:
    """``harness align``: the fitted combination's model search and the columns it may use."""

    outer_folds: int = MISSING
    inner_folds: int = MISSING
    alphas: List[float] = MISSING
    min_coverage: float = MISSING
    exclude: List[str] = field(default_factory=list)


@dataclass
class MetaEvalSchema(TargetSchema):
    _convert_: str = "all"
    bootstrap: BootstrapSchema = field(default_factory=BootstrapSchema)
    absolute_scale: Optional[List[float]] = None
    pairwise_scale: List[float] = MISSING
    headline: str = MISSING
    min_pairs: int = MISSING
    experiment_name: str = MISSING
    align: AlignSchema = field(default_factory=AlignSchema)


OPTIONS = {"default": MetaEvalSchema}
