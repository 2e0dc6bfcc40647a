"""Schemas of the ``judge`` group: the model that applies the rubrics."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, Optional

from omegaconf import MISSING

from harness.config.schemas.base import ApiClientSchema, LocalModelSchema, TargetSchema
from harness.config.schemas.choices import CacheMode


@dataclass
class SelfCheckSchema:
    """Right vs another question's answer, scored before the first real item (AUC, gap, ties)."""

    enabled: bool = MISSING
    pairs: int = MISSING
    min_auc: float = MISSING
    contexts: int = MISSING


@dataclass
class NoJudgeSchema(TargetSchema):
    pass


@dataclass
class LocalJudgeSchema(LocalModelSchema):
    temperature: float = MISSING
    samples: int = MISSING
    seed: int = MISSING
    cache: CacheMode = MISSING
    selfcheck: Optional[SelfCheckSchema] = None
    # More than this share of failed judgements fails the job (exit 1).
    max_failed_fraction: float = MISSING


@dataclass
class ApiJudgeSchema(ApiClientSchema):
    samples: int = MISSING
    seed: int = MISSING
    cache: CacheMode = MISSING
    # Reply words mapped onto the rubric's (e.g. {"pass": "yes"}).
    aliases: Dict[str, str] = field(default_factory=dict)
    selfcheck: Optional[SelfCheckSchema] = None
    # More than this share of failed judgements fails the job (exit 1).
    max_failed_fraction: float = MISSING
    # Send a JSON rubric's reply schema as response_format (OpenAI-compatible servers that have it).
    structured_output: bool = False


@dataclass
class ProviderEnvSchema:
    """The environment variables MLflow's judges read for one provider."""

    key_env: Optional[str] = None
    base_url_var: Optional[str] = None


@dataclass
class MlflowJudgeSchema(TargetSchema):
    """MLflow's own GenAI judges, run with the model a provider URI names (judge=mlflow)."""

    model: str = MISSING
    base_url: Optional[str] = None
    api_key_env: Optional[str] = None
    provider_env: Dict[str, ProviderEnvSchema] = MISSING
    timeout: float = MISSING
    probe_timeout: float = MISSING
    concurrency: int = MISSING
    seed: int = MISSING
    cache: CacheMode = MISSING
    selfcheck: Optional[SelfCheckSchema] = None
    max_failed_fraction: float = MISSING


OPTIONS = {"none": NoJudgeSchema, "local": LocalJudgeSchema, "openai": ApiJudgeSchema,
           "anthropic": ApiJudgeSchema, "mlflow": MlflowJudgeSchema}
