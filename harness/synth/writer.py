"""The writer interface: one question (or none, with the reason) per group of passages."""

from __future__ import annotations

import hashlib
import json
from abc import ABC, abstractmethod
from typing import Any

from harness.chunkers.base import Chunk
from harness.synth.records import Tools, Written

DIFFICULTIES = ("easy", "medium", "hard")


class Writer(ABC):
    """Writes candidate questions from passages.

    ``kind`` names the set's kind (``--kind``); ``multi_hop`` is the share of the questions written
    from two passages that retrieve each other (0 for writers that only read one).
    """

    kind: str = ""
    multi_hop: float = 0.0

    def __init__(self, difficulty: dict[str, str]) -> None:
        bad = {k: v for k, v in difficulty.items() if v not in DIFFICULTIES}
        if bad:
            raise ValueError(f"synth.writer.difficulty values must be one of {list(DIFFICULTIES)}, got {bad}")
        self.difficulty = dict(difficulty)

    @abstractmethod
    def write(self, groups: list[tuple[Chunk, ...]], tools: Tools, seed: int) -> list[Written]:
        """One :class:`Written` per group, in order; a failed call or an unusable reply is a
        ``Written`` with ``failed`` and its reason, never an exception."""

    @abstractmethod
    def templates(self) -> dict[str, Any]:
        """Every text that shapes the questions (prompts, question templates): what the prompt hash covers."""

    def model(self, tools: Tools) -> str | None:
        """The model that writes (None: no language model)."""
        return None

    def prompt_sha256(self) -> str:
        """sha256 of :meth:`templates` (canonical JSON), on every line's provenance."""
        payload = json.dumps(self.templates(), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(payload.encode()).hexdigest()
