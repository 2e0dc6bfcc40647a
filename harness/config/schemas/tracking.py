"""Schemas of the ``tracking`` group."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional

from omegaconf import MISSING

from harness.config.schemas.base import TargetSchema
from harness.config.schemas.choices import Direction, Traces


@dataclass
class TrackingServerSchema:
    probe_timeout: float = MISSING
    # MLflow reads these three as integers.
    max_retries: int = MISSING
    backoff_factor: int = MISSING
    timeout: int = MISSING
    # Waiting for a server that stops answering mid-sweep, once per outage and sweep
    # (harness.tracking.mlflow.retry, harness.tracking.sweep.outage).
    retry_seconds: float = MISSING
    retry_wait: float = MISSING


@dataclass
class MLflowTrackingSchema(TargetSchema):
    tracking_uri: str = MISSING
    experiment_name: str = MISSING
    artifact_location: Optional[str] = None
    ui_hint: bool = MISSING
    server: TrackingServerSchema = field(default_factory=TrackingServerSchema)
    traces: Traces = MISSING
    traces_max: int = MISSING
    traces_worst: int = MISSING
    traces_seed: int = MISSING
    traces_primary: Optional[str] = None
    traces_primary_direction: Direction = Direction.higher
    # a list of metric names, or null (typed Any: a resolver call fills it)
    trace_assessments: Any = None
    trace_passage_chars: int = MISSING
    background_traces_from: int = MISSING


@dataclass
class NoTrackingSchema(TargetSchema):
    pass


OPTIONS = {"mlflow": MLflowTrackingSchema, "none": NoTrackingSchema}
