"""Schema of the ``gates`` group (CI gates, :mod:`harness.gates`); registered by
:func:`harness.config.register`, so a misspelt rule key fails when the config is composed."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import List, Optional

from hydra.core.config_store import ConfigStore
from omegaconf import MISSING


@dataclass
class GateRuleSchema:
    metric: str = MISSING
    min: Optional[float] = None
    max: Optional[float] = None
    no_significant_regression_vs: Optional[str] = None
    direction: str = "higher"


@dataclass
class GatesSchema:
    _target_: str = MISSING
    _convert_: str = "all"
    rules: List[GateRuleSchema] = field(default_factory=list)
    alpha: float = MISSING


def register_gates_schema() -> None:
    ConfigStore.instance().store(group="schema/gates", name="default", node=GatesSchema)
