"""Structured-config schemas of the ``routes`` and ``router`` groups and the ``routes`` metric suite.

Registered by :func:`harness.config.schemas.register_schemas` like every other group's, so a
typo in ``conf/routes/*.yaml`` (a misspelt weight key, a check field) fails at compose time.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional

from hydra.core.config_store import ConfigStore
from omegaconf import MISSING


@dataclass
class TextCheckSchema:
    name: str = MISSING
    weight: float = MISSING
    pattern: Optional[str] = None
    terms: Optional[List[str]] = None
    min_chars: Optional[int] = None
    max_chars: Optional[int] = None
    negate: bool = False
    whole_words: bool = False


@dataclass
class RouteProfileSchema:
    weights: Dict[str, float] = MISSING
    quality_threshold: float = MISSING
    min_semantic_similarity: Optional[float] = None
    below_minimum_floor: Optional[float] = None
    minimum_from_question: bool = False
    semantic_bonuses: List[TextCheckSchema] = field(default_factory=list)
    executive_format: Optional[List[TextCheckSchema]] = None
    # Required: whether retrieved passages vouch for an answer's figures is a per-route choice.
    contexts_support: bool = MISSING


@dataclass
class TwoTierSchema:
    routing: float = MISSING
    quality: float = MISSING
    wrong_route: Optional[float] = None


@dataclass
class BehaviourSchema:
    clarification_patterns: List[str] = MISSING
    out_of_scope_patterns: List[str] = MISSING
    detected: float = MISSING
    missed: float = MISSING
    not_applicable_when_detected: List[str] = field(default_factory=list)


@dataclass
class RouteTableSchema:
    _target_: str = MISSING
    routes: Dict[str, str] = MISSING
    profiles: Dict[str, RouteProfileSchema] = MISSING
    default_route: str = MISSING
    fallback_profile: str = MISSING
    two_tier: TwoTierSchema = field(default_factory=TwoTierSchema)
    presentation: List[TextCheckSchema] = MISSING
    behaviour: BehaviourSchema = field(default_factory=BehaviourSchema)
    forbidden_keyword_accuracy: float = MISSING


@dataclass
class NumberRulesSchema:
    relative_tolerance: float = MISSING
    max_relative_rounding: float = MISSING
    ignore_years: Optional[List[int]] = None


@dataclass
class RouteSuiteSchema:
    _target_: str = MISSING
    table: Any = MISSING
    encoder: str = MISSING
    device: str = "auto"
    batch_size: int = 64
    fact_matcher: str = "fuzzy"
    numbers: NumberRulesSchema = field(default_factory=NumberRulesSchema)


@dataclass
class FixedRouterSchema:
    _target_: str = MISSING
    route: str = MISSING


@dataclass
class FromPredictionsRouterSchema:
    _target_: str = MISSING


@dataclass
class KeywordRule:
    route: str = MISSING
    keywords: List[str] = MISSING


@dataclass
class KeywordRouterSchema:
    _target_: str = MISSING
    rules: List[KeywordRule] = MISSING
    default_route: str = MISSING
    whole_words: bool = True


@dataclass
class EmbeddingRouterSchema:
    _target_: str = MISSING
    examples: Dict[str, List[str]] = MISSING
    model: str = MISSING
    default_route: str = MISSING
    min_similarity: Optional[float] = None
    device: str = "auto"
    batch_size: int = 64


ROUTE_GROUP_SCHEMAS = {
    "routes": {"table": RouteTableSchema},
    "router": {"fixed": FixedRouterSchema, "from_predictions": FromPredictionsRouterSchema,
               "keyword": KeywordRouterSchema, "embedding": EmbeddingRouterSchema},
    "metrics": {"routes": RouteSuiteSchema},
}


def register_route_schemas(cs: ConfigStore) -> None:
    for group, options in ROUTE_GROUP_SCHEMAS.items():
        for name, node in options.items():
            cs.store(group=f"schema/{group}", name=name, node=node)
