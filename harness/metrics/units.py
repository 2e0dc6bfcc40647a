"""Every metric's unit, range and short label, from ``units.yaml`` beside the suites.

The console legend, the HTML report and the MLflow run description read them from here, so a
number is never shown without saying what it counts.

Example:
    >>> unit = unit_of("retrieval/ndcg_at_5")
    >>> unit.short, unit.unit, unit.range_text
    ('ndcg@5', 'nDCG', '0-1')
    >>> legend_line("key_facts/coverage_exact")
    'cov = key_facts/coverage_exact (share of key facts, 0-1)'
"""

from __future__ import annotations

import fnmatch
import functools
import re
from dataclasses import dataclass
from pathlib import Path

import yaml

REGISTRY = Path(__file__).with_name("units.yaml")


@dataclass(frozen=True)
class Unit:
    """A metric's short label, unit and range (``None``: unbounded on that side)."""

    name: str
    short: str
    unit: str
    low: float | None
    high: float | None

    @property
    def range_text(self) -> str:
        """``0-1``, ``>= 0``, ``<= 0``, or ``""`` when unbounded."""
        low, high = (None if v is None else f"{v:g}" for v in (self.low, self.high))
        if low is not None and high is not None:
            return f"{low}-{high}" if not low.startswith("-") else f"{low} to {high}"
        return f">= {low}" if low is not None else f"<= {high}" if high is not None else ""

    def describe(self) -> str:
        """``share of key facts, 0-1``."""
        return ", ".join(part for part in (self.unit, self.range_text) if part)


@functools.cache
def _entries() -> tuple[tuple[re.Pattern, str, str, tuple], ...]:
    entries = []
    for index, entry in enumerate(yaml.safe_load(REGISTRY.read_text())):
        missing = {"match", "short", "unit", "range"} - set(entry)
        if missing:
            raise ValueError(f"{REGISTRY}: entry {index + 1} ({entry}) lacks {sorted(missing)}")
        # fnmatch's `*` as a capturing group, so `short` can reuse what it matched
        pattern = re.compile(fnmatch.translate(entry["match"]).replace(".*", "(.*)"))
        entries.append((pattern, str(entry["short"]), str(entry["unit"]), tuple(entry["range"])))
    return tuple(entries)


def unit_of(name: str) -> Unit:
    """The first registry entry matching ``name``; KeyError naming the registry when none does."""
    for pattern, short, unit, (low, high) in _entries():
        found = pattern.match(name)
        if found:
            for group in found.groups():
                short = short.replace("*", group, 1)
            return Unit(name, short, unit, low, high)
    raise KeyError(f"metric {name!r} has no unit: add an entry to {REGISTRY}")


def short_labels(names: list[str]) -> dict[str, str]:
    """Each name's short label; where two names share one, their full names instead."""
    labels = {name: unit_of(name).short for name in names}
    shared = {label for label in labels.values() if list(labels.values()).count(label) > 1}
    return {name: name if label in shared else label for name, label in labels.items()}


def legend_line(name: str, label: str | None = None) -> str:
    """``label = name (unit, range)``: one line of a table's legend."""
    return f"{label or unit_of(name).short} = {name} ({unit_of(name).describe()})"
