"""The ``synth`` config group (``conf/synth/``) as a validated object."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from harness.failures import check_fraction
from harness.synth.filter import Filter
from harness.synth.duplicates import DuplicatesFilter
from harness.synth.writer import Writer


class SynthSettings:
    """Settings of ``harness synth``.

    Args:
        writer: who writes the questions (:class:`~harness.synth.cloze.ClozeWriter`,
            :class:`~harness.synth.llm.LLMWriter`).
        filters: name -> filter, applied in this order; the ``duplicates`` filter, which compares
            a question with the set, runs last whatever its place.
        seed: the order passages are read in.
        batch_size: passage groups written (and filtered) at once.
        max_failed_fraction: stop once more than this share of the writes, or of one filter's
            generations, failed (or all of them did).
    """

    def __init__(self, writer: Writer, filters: Mapping[str, Any], seed: int, batch_size: int,
                 max_failed_fraction: float) -> None:
        if batch_size < 1:
            raise ValueError(f"synth.batch_size must be >= 1, got {batch_size}")
        for name, node in filters.items():
            if getattr(node, "name", None) != name:
                raise ValueError(f"synth.filters.{name} is a {type(node).__name__}, whose name is "
                                 f"{getattr(node, 'name', None)!r}; each filter goes under its own name")
        self.writer, self.seed, self.batch_size = writer, int(seed), batch_size
        self.max_failed_fraction = check_fraction("synth.max_failed_fraction", max_failed_fraction)
        self.candidate_filters: list[Filter] = [f for f in filters.values() if not isinstance(f, DuplicatesFilter)]
        self.duplicates: DuplicatesFilter | None = filters.get("duplicates")

    @property
    def kind(self) -> str:
        return self.writer.kind

    def enabled_filters(self) -> list[Filter]:
        return [f for f in self.candidate_filters if f.enabled]

    def filter_settings(self) -> dict[str, dict[str, Any]]:
        """Every filter's settings, with whether it is on (for the summary)."""
        every = [*self.candidate_filters, *([self.duplicates] if self.duplicates else [])]
        return {f.name: {"enabled": f.enabled, **f.settings()} for f in every}
