"""Schemas of the ``metrics`` group: one per metric suite."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional

from omegaconf import MISSING

from harness.config.schemas.base import RankBand, TargetSchema
from harness.config.schemas.choices import FactScore, MatcherName
from harness.config.schemas.generator import Price


@dataclass
class RetrievalSuiteSchema(TargetSchema):
    ks: List[int] = MISSING


@dataclass
class KeyFactSuiteSchema(TargetSchema):
    matchers: List[MatcherName] = MISSING
    position_weights: List[float] = MISSING
    position_fact_score: FactScore = MISSING
    rank_bands: List[RankBand] = MISSING


@dataclass
class GenerationSuiteSchema(TargetSchema):
    prices: Dict[str, Price] = field(default_factory=dict)
    price_as: Optional[str] = None
    percentiles: List[int] = MISSING


@dataclass
class BERTScoreSettings:
    model: str = MISSING
    num_layers: int = MISSING
    idf: bool = MISSING
    baseline: Optional[Dict[str, float]] = None
    batch_size: int = MISSING
    device: str = MISSING
    threads: Any = MISSING  # an int, or auto: the cores this process may use


@dataclass
class TaxonomySettings:
    correct_f1: float = MISSING
    hallucination_faithfulness: float = MISSING
    low_relevance_faithfulness: float = MISSING
    incomplete_max_tokens: int = MISSING
    incomplete_f1: float = MISSING
    verbose_rouge_l: float = MISSING
    verbose_f1: float = MISSING
    wrong_f1: float = MISSING


@dataclass
class AnswerSuiteSchema(TargetSchema):
    bertscore: Optional[BERTScoreSettings] = None
    taxonomy: TaxonomySettings = field(default_factory=TaxonomySettings)
    badness_weights: Dict[str, float] = MISSING
    worst_n: int = MISSING


@dataclass
class InterpretationBand:
    min_delta_pp: Optional[float] = MISSING
    label: str = MISSING
    # True: the delta must exceed min_delta_pp, not merely reach it.
    exclusive: bool = False


@dataclass
class ContextDeltaSignificanceSchema:
    resamples: int = MISSING
    confidence: float = MISSING
    seed: int = MISSING
    min_pairs: int = MISSING


@dataclass
class ContextDeltaSuiteSchema(TargetSchema):
    # a number, or 'auto': the accuracy threshold the judge rubric applied in this run
    threshold: Any = MISSING
    bands: List[InterpretationBand] = MISSING
    # The rubric whose judgements of both conditions replace the F1 proxy when present (null: proxy only).
    judge_rubric: Optional[str] = None
    pack_name: str = MISSING
    significance: Optional[ContextDeltaSignificanceSchema] = None


@dataclass
class JudgeSuiteSchema(TargetSchema):
    pass


@dataclass
class ExternalMetricsSuiteSchema(TargetSchema):
    pass


@dataclass
class CombinedSuiteSchema(TargetSchema):
    combinations: Dict[str, Dict[str, float]] = MISSING


@dataclass
class AlignedModelSchema:
    """One combination written by ``harness align`` (conf/metrics/aligned/<name>.yaml)."""

    weights: Dict[str, float] = MISSING
    intercept: float = MISSING
    fill: Dict[str, float] = MISSING
    provenance: Dict[str, Any] = field(default_factory=dict)


@dataclass
class AlignedSuiteSchema(TargetSchema):
    models: Dict[str, AlignedModelSchema] = field(default_factory=dict)


@dataclass
class NumberRulesSchema:
    relative_tolerance: float = MISSING
    max_relative_rounding: float = MISSING
    ignore_years: Optional[List[int]] = None


@dataclass
class RouteSuiteSchema(TargetSchema):
    table: Any = MISSING
    encoder: str = MISSING
    device: str = MISSING
    batch_size: int = MISSING
    fact_matcher: MatcherName = MISSING
    numbers: NumberRulesSchema = field(default_factory=NumberRulesSchema)


OPTIONS = {"retrieval": RetrievalSuiteSchema, "first_stage": RetrievalSuiteSchema, "key_facts": KeyFactSuiteSchema, "generation": GenerationSuiteSchema,
           "answer": AnswerSuiteSchema, "context_delta": ContextDeltaSuiteSchema, "judge": JudgeSuiteSchema,
           "external": ExternalMetricsSuiteSchema, "routes": RouteSuiteSchema,
           "combined": CombinedSuiteSchema, "aligned": AlignedSuiteSchema}
