"""Schemas of the ``retriever`` group."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional

from omegaconf import MISSING

from harness.config.schemas.base import TargetSchema


@dataclass
class RetrieverSchema(TargetSchema):
    top_k: int = MISSING


@dataclass
class BM25RetrieverSchema(RetrieverSchema):
    k1: float = MISSING
    b: float = MISSING
    # bm25s' method names include "bm25+", which is not an Enum name; BM25Retriever checks it.
    method: str = MISSING
    stemmer: Optional[str] = None
    stopwords: Optional[str] = None
    include_title: bool = MISSING


@dataclass
class DenseRetrieverSchema(RetrieverSchema):
    model: str = MISSING
    device: str = MISSING
    batch_size: int = MISSING
    normalize: bool = MISSING
    include_title: bool = MISSING


@dataclass
class HybridRetrieverSchema(RetrieverSchema):
    rrf_k: int = MISSING
    candidates: int = MISSING
    sparse: Any = MISSING
    dense: Any = MISSING


OPTIONS = {"bm25": BM25RetrieverSchema, "dense": DenseRetrieverSchema, "hybrid": HybridRetrieverSchema}
