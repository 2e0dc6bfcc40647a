"""Text checks configured in YAML: a regex, a list of terms, or a length bound, with a weight.

Seed 001 scores answers with such checks: the executive-format check (a currency regex worth
0.30, benchmarking/trend/insight term lists worth 0.25/0.25/0.20), the semantic bonuses (term
lists worth 0.10 each, 300+ characters worth 0.05), and the presentation checks of this harness.

Terms match as the seed's ``term in answer.lower()`` (a case-insensitive substring: "change" also
matches "exchange"); ``whole_words`` matches them as whole words instead. A ``pattern`` is a Python
regex searched as written (the seed's currency regex is case-sensitive; add ``(?i)`` for not).

Example:
    >>> TextCheck("trend", 0.25, terms=["trend", "growth"]).passes("Revenue growth: +5%")
    True
    >>> TextCheck("long", 0.05, min_chars=300).passes("short")
    False
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

FIELDS = ("name", "weight", "pattern", "terms", "min_chars", "max_chars", "negate", "whole_words")


@dataclass(frozen=True)
class TextCheck:
    """Passes when the text matches ``pattern``, contains one of ``terms`` and lies within
    ``[min_chars, max_chars]`` (each only if set); ``negate`` inverts the result.

    Raises:
        ValueError: naming the check, for a bad regex, a negative weight or no condition at all.
    """

    name: str
    weight: float
    pattern: str | None = None
    terms: tuple[str, ...] | None = None
    min_chars: int | None = None
    max_chars: int | None = None
    negate: bool = False
    whole_words: bool = False

    def __post_init__(self) -> None:
        if self.weight < 0:
            raise ValueError(f"check '{self.name}': weight must be >= 0, got {self.weight}")
        if self.pattern is None and self.terms is None and self.min_chars is None and self.max_chars is None:
            raise ValueError(f"check '{self.name}': set at least one of pattern, terms, min_chars, max_chars")
        if self.terms is not None and (not self.terms or any(not str(t).strip() for t in self.terms)):
            raise ValueError(f"check '{self.name}': terms must be a non-empty list of non-empty strings")
        if self.pattern is not None:
            try:
                object.__setattr__(self, "_regex", re.compile(self.pattern))
            except re.error as err:
                raise ValueError(f"check '{self.name}': invalid pattern {self.pattern!r}: {err}") from err
        if self.terms is not None:
            lowered = tuple(str(t).lower() for t in self.terms)
            words = re.compile(r"\b(?:" + "|".join(re.escape(t) for t in lowered) + r")\b") if self.whole_words else None
            object.__setattr__(self, "_terms", lowered)
            object.__setattr__(self, "_words", words)

    @classmethod
    def from_mapping(cls, spec: Mapping[str, Any]) -> "TextCheck":
        spec = dict(spec)
        unknown = sorted(set(spec) - set(FIELDS))
        if unknown:
            raise ValueError(f"check {spec.get('name', '?')!r}: unknown keys {unknown}; expected {list(FIELDS)}")
        if "name" not in spec or "weight" not in spec:
            raise ValueError(f"check {spec!r}: 'name' and 'weight' are required")
        terms = spec.get("terms")
        return cls(name=str(spec["name"]), weight=float(spec["weight"]), pattern=spec.get("pattern"),
                   terms=None if terms is None else tuple(str(t) for t in terms),
                   min_chars=None if spec.get("min_chars") is None else int(spec["min_chars"]),
                   max_chars=None if spec.get("max_chars") is None else int(spec["max_chars"]),
                   negate=bool(spec.get("negate", False)), whole_words=bool(spec.get("whole_words", False)))

    def passes(self, text: str) -> bool:
        ok = True
        if self.pattern is not None:
            ok = ok and self._regex.search(text) is not None
        if self.terms is not None:
            lowered = text.lower()
            ok = ok and (self._words.search(lowered) is not None if self.whole_words
                         else any(term in lowered for term in self._terms))
        if self.min_chars is not None:
            ok = ok and len(text) >= self.min_chars
        if self.max_chars is not None:
            ok = ok and len(text) <= self.max_chars
        return ok != self.negate


def build_checks(specs: Iterable[Mapping[str, Any]] | None, what: str) -> tuple[TextCheck, ...] | None:
    """Checks from YAML mappings (None stays None); duplicate names are refused."""
    if specs is None:
        return None
    checks = tuple(spec if isinstance(spec, TextCheck) else TextCheck.from_mapping(spec) for spec in specs)
    names = [c.name for c in checks]
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        raise ValueError(f"{what}: duplicate check names {duplicates}")
    return checks


def passed_weight(text: str, checks: Iterable[TextCheck]) -> float:
    """Sum of the weights of the checks the text passes."""
    return sum((check.weight for check in checks if check.passes(text)), 0.0)
