"""Gate rules: a metric's bounds, no significant regression against a baseline run, or a
configuration that must stay on the sweep's ship-candidate front (``stats.front``).

Example:
    >>> gates = Gates(rules=[{"metric": "answer/f1", "min": 0.6}], alpha=0.05)
    >>> gates.check({"run-a": {"answer/f1": 0.55}, "run-b": {"answer/f1": 0.7}}, tables={})
    ['gate answer/f1 >= 0.6 failed: run run-a has 0.5500']
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from harness.stats.paired import MisalignedError, align

_DIRECTIONS = ("higher", "lower")


@dataclass(frozen=True)
class GateRule:
    """One gate. ``min``/``max`` bound the run's aggregate; ``no_significant_regression_vs`` names
    a baseline run (a run of this sweep or an MLflow run name or id) that the run's per-question
    values must not be significantly worse than (two-sided paired t-test at the gates' alpha);
    ``on_front`` names a configuration of the sweep (its run name, or its short name) that must
    be on the sweep's front (no metric: the front weighs the primary metric, cost and latency)."""

    metric: str | None = None
    min: float | None = None
    max: float | None = None
    no_significant_regression_vs: str | None = None
    direction: str = "higher"
    on_front: str | None = None

    def describe(self) -> str:
        if self.on_front is not None:
            return f"{self.on_front} on the front"
        if self.no_significant_regression_vs is not None:
            return f"{self.metric} no significant regression vs {self.no_significant_regression_vs}"
        bounds = [f">= {self.min:g}"] if self.min is not None else []
        bounds += [f"<= {self.max:g}"] if self.max is not None else []
        return f"{self.metric} {' and '.join(bounds)}"


class Gates:
    """Args:
        rules: one mapping per gate (see :class:`GateRule`).
        alpha: significance level of the regression gates.
    """

    def __init__(self, rules: list[dict[str, Any]], alpha: float) -> None:
        self.rules = [GateRule(**rule) for rule in rules]
        for i, rule in enumerate(self.rules):
            bounded = rule.min is not None or rule.max is not None
            kinds = bounded + (rule.no_significant_regression_vs is not None) + (rule.on_front is not None)
            if kinds != 1:
                raise ValueError(f"gates.rules[{i}] ({rule.metric or rule.on_front}): give min and/or max, "
                                 "no_significant_regression_vs, or on_front: one of them")
            if (rule.metric is None) != (rule.on_front is not None):
                raise ValueError(f"gates.rules[{i}]: " + ("an on_front rule takes no metric" if rule.on_front
                                                          else "give the metric the rule checks"))
            if rule.direction not in _DIRECTIONS:
                raise ValueError(f"gates.rules[{i}].direction must be one of {_DIRECTIONS}, got {rule.direction!r}")
        if not 0 < alpha < 1:
            raise ValueError(f"gates.alpha must be in (0, 1), got {alpha}")
        self.alpha = alpha

    @property
    def enabled(self) -> bool:
        return bool(self.rules)

    def baselines(self) -> set[str]:
        """The baseline runs the regression gates name."""
        return {r.no_significant_regression_vs for r in self.rules if r.no_significant_regression_vs is not None}

    def check(self, runs: dict[str, dict[str, float]], tables: dict[str, list[dict[str, Any]]],
              baselines: dict[str, list[dict[str, Any]]] | None = None,
              front: dict[str, Any] | None = None) -> list[str]:
        """One line per failed gate and run. ``runs``: run name -> aggregate metrics; ``tables``:
        run name -> per-question rows; ``baselines``: baseline ref -> its per-question rows;
        ``front``: the sweep's front as written to ``front.json`` (None: none was computed)."""
        failures = []
        for rule in self.rules:
            if rule.on_front is not None:
                failure = _off_front(rule.on_front, front)
                failures += [f"gate {rule.describe()} failed: {failure}"] if failure else []
                continue
            for name, metrics in runs.items():
                if rule.no_significant_regression_vs is None:
                    failure = _bounds(rule, name, metrics.get(rule.metric))
                elif name != rule.no_significant_regression_vs:
                    failure = self._regression(rule, name, tables.get(name, []),
                                               (baselines or {}).get(rule.no_significant_regression_vs))
                else:
                    failure = None  # the baseline itself, run in the same sweep
                if failure:
                    failures.append(f"gate {rule.describe()} failed: {failure}")
        return failures

    def _regression(self, rule: GateRule, name: str, rows: list[dict[str, Any]],
                    baseline: list[dict[str, Any]] | None) -> str | None:
        if baseline is None:
            return f"baseline run '{rule.no_significant_regression_vs}' not found"
        try:
            sample = align(_values(baseline, rule.metric), _values(rows, rule.metric), label=rule.metric)
        except MisalignedError as err:  # different questions: no verdict is possible, the gate fails
            return f"run {name}: {err}"
        if sample.n == 0:
            return f"run {name} and the baseline share no question with a {rule.metric} value"
        mean_diff = float(sample.differences.mean())
        worse = mean_diff < 0 if rule.direction == "higher" else mean_diff > 0
        from harness.stats.t_test import paired_t_test  # scipy: loaded only when a gate compares runs

        test = paired_t_test(sample)
        if worse and test.testable and test.p_value < self.alpha:
            return (f"run {name} is significantly worse: mean difference {mean_diff:+.4f} over {sample.n} "
                    f"questions, paired t-test p={test.p_value:.4g} < {self.alpha:g}")
        return None


def _off_front(name: str, front: dict[str, Any] | None) -> str | None:
    """Why configuration ``name`` (a run name or its short name) is not on ``front``, else None."""
    if front is None:
        return "no front was computed (a single run, or stats=none, or stats.front.enabled=false)"
    short = front["short"]
    found = next((run for run in front["runs"] if name in (run["name"], short[run["name"]])), None)
    if found is None:
        return f"'{name}' is not among the compared configurations: {', '.join(short.values())}"
    if not found["front"]:
        reason = front.get("reasons", {}).get(found["name"], f"dominated by {short[found['dominated_by']]}")
        return f"{short[found['name']]} left the front: {reason}"
    return None


def _bounds(rule: GateRule, name: str, value: float | None) -> str | None:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return f"run {name} has no {rule.metric}"
    if (rule.min is not None and value < rule.min) or (rule.max is not None and value > rule.max):
        return f"run {name} has {value:.4f}"
    return None


def _values(rows: list[dict[str, Any]], metric: str) -> dict[str, Any]:
    return {row["question_id"]: row.get(metric) for row in rows}
