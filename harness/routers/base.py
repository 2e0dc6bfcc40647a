"""The router interface: the part of the pipeline under test that picks each question's route."""

from __future__ import annotations

from abc import ABC, abstractmethod

from harness.cache import DiskCache
from harness.results.records import QuestionRecord


class Router(ABC):
    """Assigns a route to every question (None when it cannot tell)."""

    @abstractmethod
    def route(self, records: list[QuestionRecord], cache: DiskCache | None = None) -> list[str | None]:
        """One route per record, in order."""

    def routes(self) -> set[str]:
        """The routes this router can return (empty when it cannot know, as ``from_predictions``)."""
        return set()
