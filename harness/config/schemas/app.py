"""Schemas of the ``app`` group: your own application as the system under test."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional

from omegaconf import MISSING

from harness.config.schemas.base import TargetSchema
from harness.config.schemas.choices import OnFailure


@dataclass
class NoAppSchema(TargetSchema):
    pass


@dataclass
class AppSchema(TargetSchema):
    """What every app shares: its params (any keys, swept like any value), caching and failures."""

    params: Dict[str, Any] = field(default_factory=dict)
    version: Optional[str] = None
    concurrency: int = MISSING
    timeout: float = MISSING
    max_failed_fraction: float = MISSING
    top_k: Optional[int] = None
    on_failure: OnFailure = MISSING  # miss | exclude: what a failed question scores


@dataclass
class PythonAppSchema(AppSchema):
    target: str = MISSING
    allowed_targets: List[str] = MISSING
    # Reads contexts from the app's own MLflow trace (app=python_traced); null: from its reply only.
    trace: Any = None


@dataclass
class HttpReplyFieldsSchema:
    """Where the answer and the contexts are in the JSON reply (dotted paths)."""

    answer: str = MISSING
    contexts: Optional[str] = None
    input_tokens: Optional[str] = None
    output_tokens: Optional[str] = None
    cost_usd: Optional[str] = None


@dataclass
class HttpAppSchema(AppSchema):
    url: str = MISSING
    method: str = MISSING
    request: Dict[str, Any] = field(default_factory=dict)
    headers: Dict[str, str] = field(default_factory=dict)
    api_key_env: Optional[str] = None
    reply: HttpReplyFieldsSchema = field(default_factory=HttpReplyFieldsSchema)
    max_retries: int = MISSING
    retry_wait_seconds: float = MISSING


OPTIONS = {"none": NoAppSchema, "python": PythonAppSchema, "python_traced": PythonAppSchema, "http": HttpAppSchema}
