"""Aligned scorers: combinations of a run's per-question columns fitted to human labels by
``harness align`` and loaded from the metric config it writes.

A model is ``{weights: {column: w}, intercept, fill: {column: value}, provenance: {...}}`` and gives
the per-question column ``aligned/<name>`` = intercept + sum(w x value), where a missing member
takes its ``fill`` (the member's mean in the runs it was fitted on); a question missing every
member gets no value. Unlike ``combined/*`` the weights are in the columns' own units, so values
compare across runs. The provenance (label file and its hash, held-out agreement) is logged
with the run's config.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from harness.metrics.suites import DerivedSuite, Scores


class AlignedSuite(DerivedSuite):
    """Args:
        models: name -> ``{weights, intercept, fill, provenance}`` (written by ``harness align``).

    >>> suite = AlignedSuite({"m": {"weights": {"a/x": 2.0, "b/y": -1.0}, "intercept": 0.5,
    ...                             "fill": {"a/x": 1.0, "b/y": 0.0}}})
    >>> suite.derive([{"a/x": 1.0, "b/y": 3.0}, {"b/y": 1.0}, {}])
    [{'m': -0.5}, {'m': 1.5}, {}]
    """

    def __init__(self, models: Mapping[str, Mapping[str, Any]] | None = None) -> None:
        self.models: dict[str, tuple[dict[str, float], float, dict[str, float]]] = {}
        for name, spec in dict(models or {}).items():
            where = f"metrics.aligned.models.{name}"
            weights = {str(c): float(w) for c, w in dict(spec.get("weights") or {}).items()}
            fill = {str(c): float(v) for c, v in dict(spec.get("fill") or {}).items()}
            if not weights or not all(np.isfinite(w) for w in weights.values()):
                raise ValueError(f"{where}: needs finite weights for at least one column, got {weights}")
            if set(fill) != set(weights):
                raise ValueError(f"{where}: fill must name the same columns as weights ({sorted(weights)})")
            self.models[str(name)] = (weights, float(spec.get("intercept", 0.0)), fill)

    def derive(self, columns: list[dict[str, float]]) -> list[Scores]:
        rows: list[Scores] = [{} for _ in columns]
        for name, (weights, intercept, fill) in self.models.items():
            for row, out in zip(columns, rows):
                present = {c: row.get(c) for c in weights if _finite(row.get(c))}
                if present:
                    out[name] = intercept + sum(w * float(present.get(c, fill[c])) for c, w in weights.items())
        return rows

    def aggregate(self, rows: list[Scores]) -> Scores:
        aggregates: Scores = {}
        for name in self.models:
            values = [row[name] for row in rows if name in row]
            aggregates[f"{name}_n"] = float(len(values))
            if values:
                aggregates[name] = float(np.mean(values))
        return aggregates


def _finite(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and bool(np.isfinite(value))
