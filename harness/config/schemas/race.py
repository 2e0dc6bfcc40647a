"""Schema of the root ``race`` block: racing sweeps (``hydra/sweeper=racing``, harness/racing/)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import List, Optional

from omegaconf import MISSING

from harness.config.schemas.choices import Stratum


class RaceTest(StrEnum):
    """Lower bounds of a mean paired difference valid at every round (harness/racing/confseq.py);
    ``asymptotic`` only in the limit (harness/racing/asymptotic.py)."""

    betting = "betting"
    empirical_bernstein = "empirical_bernstein"
    hoeffding = "hoeffding"
    asymptotic = "asymptotic"


class RaceEvidence(StrEnum):
    """How the primary metric's evidence eliminates (harness/racing/elimination.py)."""

    leader = "leader"
    pairwise = "pairwise"


class RaceDecide(StrEnum):
    """What a race is for (harness/racing/elimination.py): the best configuration, or the front."""

    winner = "winner"
    front = "front"


@dataclass
class RaceSchema:
    # Set by the racing sweeper for each round: run only the first N questions of the race order.
    questions: Optional[int] = None
    stratify: Optional[Stratum] = None
    seed: int = MISSING
    first: int = MISSING
    step: int = MISSING
    growth: float = MISSING
    min_questions: int = MISSING
    max_rounds: int = MISSING
    alpha: float = MISSING
    test: RaceTest = MISSING
    tightest_at: float = MISSING
    evidence: RaceEvidence = MISSING
    decide: RaceDecide = MISSING
    bounds: List[float] = MISSING
