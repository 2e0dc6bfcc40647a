"""Schemas of the ``stats`` group: paired significance tests of a sweep (seed 003, section 7)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import List, Optional

from omegaconf import MISSING

from harness.config.schemas.base import TargetSchema
from harness.config.schemas.choices import Correction, Direction, StatTest


@dataclass
class PrimaryMetric:
    name: Optional[str] = None  # null: the first headline metric the runs have
    direction: Direction = MISSING


@dataclass
class GuardMetric:
    name: str = MISSING
    direction: Direction = MISSING
    tolerance: float = MISSING


@dataclass
class SweepStatisticsSchema(TargetSchema):
    alpha: float = MISSING
    power: float = MISSING
    primary: PrimaryMetric = field(default_factory=PrimaryMetric)
    guards: List[GuardMetric] = field(default_factory=list)
    test: StatTest = MISSING
    resamples: int = MISSING
    seed: int = MISSING
    correction: Correction = MISSING
    champion: Optional[str] = None
    planning_effects: List[float] = MISSING
    # Where a null primary metric is taken from (report.headline).
    headline: List[str] = MISSING


@dataclass
class NoStatisticsSchema(TargetSchema):
    pass


OPTIONS = {"paired": SweepStatisticsSchema, "none": NoStatisticsSchema}
