"""Schemas of meta-evaluation: the ``meta_eval`` group and the ``external`` metric suite.

Kept apart from :mod:`harness.config.schemas` so that this feature's settings can be read
(and merged) on their own; registered by :func:`harness.config.register`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import List, Optional

from hydra.core.config_store import ConfigStore
from omegaconf import MISSING


@dataclass
class BootstrapSchema:
    resamples: int = MISSING
    confidence: float = MISSING
    seed: int = 0


@dataclass
class MetaEvalSchema:
    _target_: str = MISSING
    _convert_: str = "all"
    bootstrap: BootstrapSchema = field(default_factory=BootstrapSchema)
    absolute_scale: Optional[List[float]] = None
    pairwise_scale: List[float] = MISSING
    headline: str = MISSING
    min_pairs: int = MISSING
    experiment_name: str = "harness"


@dataclass
class ExternalMetricsSuiteSchema:
    _target_: str = MISSING


def register_meta_eval_schemas() -> None:
    cs = ConfigStore.instance()
    cs.store(group="schema/meta_eval", name="default", node=MetaEvalSchema)
    cs.store(group="schema/metrics", name="external", node=ExternalMetricsSuiteSchema)
