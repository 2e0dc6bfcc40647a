"""Schemas of the judges' self-check and of the likelihood rubrics (``conf/rubric/likelihood_*``).

Kept apart from :mod:`harness.config.schemas` so this feature's settings read on their own;
registered by :func:`harness.config.register`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import List, Optional

from hydra.core.config_store import ConfigStore
from omegaconf import MISSING


@dataclass
class SelfCheckSchema:
    enabled: bool = True
    pairs: int = MISSING
    min_auc: float = MISSING
    contexts: int = MISSING


@dataclass
class LikelihoodMessage:
    role: str = MISSING
    content: str = MISSING


@dataclass
class UnconditionalPrompt:
    messages: List[LikelihoodMessage] = field(default_factory=list)
    prefix: str = ""


@dataclass
class LikelihoodRubricSchema:
    _target_: str = MISSING
    column: str = MISSING
    applies_to: List[str] = MISSING
    messages: List[LikelihoodMessage] = MISSING
    prefix: str = ""
    continuation: str = MISSING
    normalisation: str = MISSING
    unconditional: Optional[UnconditionalPrompt] = None
    transform: str = MISSING
    multiplier: float = 1.0
    accuracy_threshold: Optional[float] = None
    repair: str = "unused: likelihood rubrics read no reply"
    context_item: str = "[{rank}] {text}"
    context_separator: str = "\n\n"


def register_judge_schemas() -> None:
    cs = ConfigStore.instance()
    cs.store(group="schema/rubric", name="likelihood", node=LikelihoodRubricSchema)
