"""Schemas of the ``tracking`` group."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from omegaconf import MISSING

from harness.config.schemas.base import TargetSchema


@dataclass
class MLflowTrackingSchema(TargetSchema):
    tracking_uri: str = MISSING
    experiment_name: str = MISSING
    artifact_location: Optional[str] = None
    ui_hint: bool = MISSING


@dataclass
class NoTrackingSchema(TargetSchema):
    pass


OPTIONS = {"mlflow": MLflowTrackingSchema, "none": NoTrackingSchema}
