"""Schemas of the ``gates`` group: CI gates checked when a run or sweep ends (:mod:`harness.gates`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import List, Optional

from omegaconf import MISSING

from harness.config.schemas.base import TargetSchema
from harness.config.schemas.choices import Direction


@dataclass
class GateRuleSchema:
    """A bound on a metric (min and/or max), no significant regression against a baseline run, or a
    configuration that must stay on the sweep's front (on_front, no metric)."""

    metric: Optional[str] = None
    min: Optional[float] = None
    max: Optional[float] = None
    no_significant_regression_vs: Optional[str] = None
    direction: Direction = Direction.higher  # a rule written on the command line rarely says it
    on_front: Optional[str] = None


@dataclass
class GatesSchema(TargetSchema):
    _convert_: str = "all"
    rules: List[GateRuleSchema] = field(default_factory=list)
    alpha: float = MISSING


OPTIONS = {"default": GatesSchema}
