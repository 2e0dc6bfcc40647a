"""Schemas of the ``routes`` group: seed 001's route table (weights, thresholds, checks)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, List, Optional

from omegaconf import MISSING

from harness.config.schemas.base import TargetSchema


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
class RouteTableSchema(TargetSchema):
    routes: Dict[str, str] = MISSING
    profiles: Dict[str, RouteProfileSchema] = MISSING
    default_route: str = MISSING
    fallback_profile: str = MISSING
    two_tier: TwoTierSchema = field(default_factory=TwoTierSchema)
    presentation: List[TextCheckSchema] = MISSING
    behaviour: BehaviourSchema = field(default_factory=BehaviourSchema)
    forbidden_keyword_accuracy: float = MISSING


OPTIONS = {"table": RouteTableSchema}
