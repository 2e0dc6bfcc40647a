"""The filter interface: scores for a batch of candidates, each with ``passed``."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any

from harness.synth.records import Candidate, Tools


class Filter(ABC):
    """One filter of candidate questions.

    ``score`` returns one dict per candidate, in order: the filter's figures (a rank, an F1) and
    ``passed``; a candidate the filter could not judge (a failed generation) gets ``passed: False``
    and ``error``, and is counted as a failure, not as removed.
    """

    name: str = ""

    def __init__(self, enabled: bool) -> None:
        self.enabled = bool(enabled)

    def check(self, tools: Tools) -> None:
        """Raises ValueError before anything is written when ``tools`` lack what the filter needs."""

    @abstractmethod
    def score(self, candidates: list[Candidate], tools: Tools) -> list[dict[str, Any]]:
        """One scores dict (with ``passed``) per candidate."""

    @abstractmethod
    def settings(self) -> dict[str, Any]:
        """Its thresholds, for the set's summary."""
