"""Schemas of the ``router`` group: the router under test."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, List, Optional

from omegaconf import MISSING

from harness.config.schemas.base import TargetSchema


@dataclass
class FixedRouterSchema(TargetSchema):
    route: str = MISSING


@dataclass
class FromPredictionsRouterSchema(TargetSchema):
    pass


@dataclass
class KeywordRule:
    route: str = MISSING
    keywords: List[str] = MISSING


@dataclass
class KeywordRouterSchema(TargetSchema):
    rules: List[KeywordRule] = MISSING
    default_route: str = MISSING
    whole_words: bool = MISSING


@dataclass
class EmbeddingRouterSchema(TargetSchema):
    examples: Dict[str, List[str]] = MISSING
    model: str = MISSING
    default_route: str = MISSING
    min_similarity: Optional[float] = None
    device: str = MISSING
    batch_size: int = MISSING


OPTIONS = {"fixed": FixedRouterSchema, "from_predictions": FromPredictionsRouterSchema,
           "keyword": KeywordRouterSchema, "embedding": EmbeddingRouterSchema}
