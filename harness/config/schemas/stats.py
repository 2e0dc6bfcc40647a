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
    margin: float = MISSING  # how much worse, in the metric's units, still counts as as good


@dataclass
class GuardMetric:
    name: str = MISSING
    direction: Direction = MISSING
    margin: float = MISSING


@dataclass
class FrontAxisSchema:
    """One cost or latency axis of the ship-candidate front (harness.stats.front_axes.Axis)."""

    name: str = MISSING
    metrics: List[str] = field(default_factory=list)  # per-question keys, the first a question has
    statistic: Optional[str] = None  # mean (null) | p50 | p95 ...
    scale: Optional[float] = None  # null: 1
    unit: Optional[str] = None
    info: Optional[str] = None  # a run-level figure of the run's info instead of per-question values
    unless: Optional[str] = None  # used only when the axis of that name is left out
    better: str = MISSING  # the word for a run lower on the axis (cheaper, faster at p95)
    timing: bool = False  # a time measured once per run: beyond noise also needs min_ratio


@dataclass
class FrontSchema:
    """Which configurations to ship: the quality-cost-latency front (harness.stats.front)."""

    enabled: bool = MISSING
    resamples: int = MISSING
    alpha: float = MISSING
    seed: int = MISSING
    min_questions: int = MISSING
    min_ratio: float = MISSING
    pairs_share: float = MISSING
    answering: List[FrontAxisSchema] = MISSING
    retrieval: List[FrontAxisSchema] = MISSING


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
    planning_sds: List[float] = field(default_factory=list)
    # Where a null primary metric is taken from (report.headline).
    headline: List[str] = MISSING
    front: FrontSchema = field(default_factory=FrontSchema)


@dataclass
class NoStatisticsSchema(TargetSchema):
    pass


OPTIONS = {"paired": SweepStatisticsSchema, "none": NoStatisticsSchema}
