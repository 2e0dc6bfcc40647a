"""Schemas of the ``reranker`` group: the second stage between retrieval and answering."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional

from omegaconf import MISSING

from harness.config.schemas.base import ApiClientSchema, TargetSchema
from harness.config.schemas.choices import ApiRerankMode, CacheMode, Fusion, LlmRerankMode


@dataclass
class RerankerSchema(TargetSchema):
    candidates: int = MISSING
    top_k: int = MISSING
    fusion: Fusion = MISSING
    weight: float = MISSING
    rrf_k: int = MISSING
    include_title: bool = MISSING
    cache: CacheMode = MISSING
    max_failed_fraction: float = MISSING


@dataclass
class CrossEncoderRerankerSchema(RerankerSchema):
    model: str = MISSING
    batch_size: int = MISSING
    max_length: int = MISSING
    device: str = MISSING


@dataclass
class YesNoReading:
    prompt: str = MISSING
    yes_replies: List[str] = MISSING
    no_replies: List[str] = MISSING


@dataclass
class QueryLikelihoodReading:
    prompt: str = MISSING
    continuation: str = MISSING


@dataclass
class LlmRerankerSchema(RerankerSchema):
    model: str = MISSING
    gguf_file: Optional[str] = None
    device: str = MISSING
    dtype: str = MISSING
    batch_size: int = MISSING
    mode: LlmRerankMode = MISSING
    max_passage_tokens: int = MISSING
    yes_no: YesNoReading = field(default_factory=YesNoReading)
    query_likelihood: QueryLikelihoodReading = field(default_factory=QueryLikelihoodReading)


@dataclass
class PointwiseReading:
    prompt: str = MISSING
    low: int = MISSING
    high: int = MISSING


@dataclass
class ListwiseReading:
    system: str = MISSING
    prompt: str = MISSING
    window: int = MISSING
    step: int = MISSING


@dataclass
class ApiRerankerSchema(RerankerSchema, ApiClientSchema):
    mode: ApiRerankMode = MISSING
    pointwise: PointwiseReading = field(default_factory=PointwiseReading)
    listwise: ListwiseReading = field(default_factory=ListwiseReading)
    prices: Dict[str, Any] = field(default_factory=dict)
    price_as: Optional[str] = None


OPTIONS = {"none": RerankerSchema, "cross_encoder": CrossEncoderRerankerSchema, "llm": LlmRerankerSchema,
           "api": ApiRerankerSchema}
