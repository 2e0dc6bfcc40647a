"""Schemas of the ``rubric`` group: what a judge is asked and how its reply is read."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional

from omegaconf import MISSING

from harness.config.schemas.base import Message, RankBand, TargetSchema
from harness.config.schemas.choices import RubricOutput


@dataclass
class Scale:
    min: float = MISSING
    max: float = MISSING


@dataclass
class VerdictBand:
    label: str = MISSING
    min_score: Optional[float] = MISSING


@dataclass
class VerdictSpec:
    field: str = MISSING
    bands: List[VerdictBand] = MISSING


@dataclass
class LocalReplies:
    value: float = MISSING
    replies: List[str] = MISSING


@dataclass
class LocalReading:
    """How a next-token-probability judge reads this rubric (judge=local)."""

    prefixes: Dict[str, str] = MISSING
    messages: Optional[List[Message]] = None
    replies: Optional[Dict[str, List[LocalReplies]]] = None


@dataclass
class RubricSchema(TargetSchema):
    column: str = MISSING
    applies_to: List[str] = MISSING
    repair: str = MISSING
    context_item: str = MISSING
    context_separator: str = MISSING


@dataclass
class ScoreRubricSchema(RubricSchema):
    messages: List[Message] = MISSING
    output: RubricOutput = MISSING
    scores: Dict[str, Scale] = MISSING
    text_fields: List[str] = field(default_factory=list)
    verdict: Optional[VerdictSpec] = None
    # a number, 'auto' (measured by the run's self-check) or null; checked by the rubric
    accuracy_threshold: Any = None
    local: LocalReading = field(default_factory=LocalReading)


@dataclass
class RetrievalGradeRubricSchema(ScoreRubricSchema):
    position_weights: List[RankBand] = MISSING
    not_found_weight: float = MISSING
    total_score_column: str = MISSING


@dataclass
class ClaimsExtraction:
    messages: List[Message] = MISSING
    local_prefix: str = MISSING


@dataclass
class ClaimsVerification:
    messages: List[Message] = MISSING
    replies: Dict[str, List[str]] = MISSING


@dataclass
class ClaimsRubricSchema(RubricSchema):
    extract: ClaimsExtraction = field(default_factory=ClaimsExtraction)
    verify: ClaimsVerification = field(default_factory=ClaimsVerification)
    max_claims: int = MISSING


@dataclass
class UnconditionalPrompt:
    """The prompt whose continuation log-probability normalises a ``pmi`` score."""

    messages: List[Message] = field(default_factory=list)
    prefix: str = MISSING


@dataclass
class LikelihoodRubricSchema(RubricSchema):
    """Scores read from the token log-probabilities of a fixed continuation (judge=local)."""

    messages: List[Message] = MISSING
    prefix: str = MISSING
    continuation: str = MISSING
    normalisation: str = MISSING
    unconditional: Optional[UnconditionalPrompt] = None
    transform: str = MISSING
    multiplier: float = MISSING
    # a number, 'auto' (measured by the run's self-check) or null; checked by the rubric
    accuracy_threshold: Any = None


@dataclass
class MlflowScorerRubricSchema(TargetSchema):
    """One of MLflow's own GenAI judges per item (judge=mlflow): a scorer, make_judge or a judge function."""

    column: str = MISSING
    applies_to: List[str] = MISSING
    scorer: str = MISSING
    options: Dict[str, Any] = field(default_factory=dict)
    values: Dict[str, float] = field(default_factory=dict)
    scale: Optional[Scale] = None


OPTIONS = {"score": ScoreRubricSchema, "retrieval_grade": RetrievalGradeRubricSchema, "claims": ClaimsRubricSchema,
           "likelihood": LikelihoodRubricSchema, "mlflow_scorer": MlflowScorerRubricSchema}
