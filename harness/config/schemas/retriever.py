"""Schemas of the ``retriever`` group."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, List, Optional

from omegaconf import MISSING

from harness.config.schemas.base import TargetSchema
from harness.config.schemas.choices import EncodingKind, IndexKind


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
    mmap: bool = MISSING


@dataclass
class ExactIndexSchema(TargetSchema):
    block_rows: int = MISSING
    query_rows: int = MISSING


@dataclass
class HNSWIndexSchema(TargetSchema):
    m: int = MISSING
    ef_construction: int = MISSING
    ef_search: int = MISSING
    add_rows: int = MISSING


@dataclass
class IVFIndexSchema(TargetSchema):
    nlist: int = MISSING
    nprobe: int = MISSING
    train_size: int = MISSING
    seed: int = MISSING
    pq_m: Optional[int] = None
    add_rows: int = MISSING


@dataclass
class IndexesSchema:
    """The vector indexes ``retriever.index`` picks from."""

    exact: ExactIndexSchema = MISSING
    hnsw: HNSWIndexSchema = MISSING
    ivf: IVFIndexSchema = MISSING


@dataclass
class LocalEncodingSchema(TargetSchema):
    processes: int = MISSING
    devices: Optional[List[str]] = None


@dataclass
class RayDataEncodingSchema(TargetSchema):
    address: Optional[str] = None
    actors: int = MISSING
    batch_rows: int = MISSING
    num_gpus: float = MISSING
    num_cpus: float = MISSING


@dataclass
class EncodingsSchema:
    """The engines ``retriever.encoding`` picks from."""

    local: LocalEncodingSchema = MISSING
    ray: RayDataEncodingSchema = MISSING


@dataclass
class DenseRetrieverSchema(RetrieverSchema):
    model: str = MISSING
    device: str = MISSING
    batch_size: int = MISSING
    normalize: bool = MISSING
    include_title: bool = MISSING
    block_rows: int = MISSING
    index: IndexKind = MISSING
    indexes: IndexesSchema = MISSING
    encoding: EncodingKind = MISSING
    encodings: EncodingsSchema = MISSING


@dataclass
class HybridRetrieverSchema(RetrieverSchema):
    rrf_k: int = MISSING
    candidates: int = MISSING
    sparse: Any = MISSING
    dense: Any = MISSING


OPTIONS = {"bm25": BM25RetrieverSchema, "dense": DenseRetrieverSchema, "hybrid": HybridRetrieverSchema}
