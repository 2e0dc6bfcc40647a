"""The cost and latency axes of the ship-candidate front (:mod:`harness.stats.front`), lower is better.

An axis reads either per-question values (a question's value is the first of ``metrics`` its row
has, times ``scale``; the run's figure is ``statistic`` over its questions: ``mean`` or a
percentile ``p50``, ``p95``...) or a run-level figure of the run's info (``info``, measured once).
Two runs differ on a per-question axis beyond noise when the paired bootstrap interval of the
difference of their figures (same questions resampled for both) leaves out zero; on a timing axis,
when the paired bootstrap interval of the ratio of their figures lies at or above ``min_ratio``; on
a run-level axis, when one figure is at least ``min_ratio`` times the other.

Example:
    >>> axis = Axis("latency_p50", metrics=("generation/latency_seconds",), statistic="p50", unit="s")
    >>> axis.values([{"question_id": "q1", "generation/latency_seconds": 0.5}, {"question_id": "q2"}])
    {'q1': 0.5}
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

import numpy as np

from harness.stats._checks import check_count, check_probability

_PERCENTILE = re.compile(r"^p(\d{1,2})$")


@dataclass(frozen=True)
class Axis:
    """One axis configurations are weighed on besides quality (``stats.front.answering`` /
    ``stats.front.retrieval`` in YAML).

    Attributes:
        name: the axis (``cost``, ``latency_p95``, ``index_memory``...).
        metrics: per-question keys; a question's value is the first one its row has.
        statistic: ``mean`` or ``p<NN>`` over the questions.
        scale: each value is multiplied by it (1000: per 1,000 questions).
        unit: what the scaled figure is in, for display.
        info: a key of the run's info (``metrics.json``) instead of per-question values.
        unless: this axis is used only when the axis of that name is left out (compute seconds
            stand in for dollars when every model is priced 0).
        better: the word for a run lower on this axis (``cheaper``, ``faster at p95``).
        timing: a time measured while the sweep ran (latency, compute seconds). Each run's times are
            taken once, at another moment of a sweep on a machine whose load drifts, which a
            per-question bootstrap cannot see: a timing advantage counts only when the paired
            bootstrap interval of the ratio of the two figures lies at or above ``min_ratio``.
            Token counts and prices are not timing.
    """

    name: str
    metrics: tuple[str, ...] = ()
    statistic: str = "mean"
    scale: float = 1.0
    unit: str = ""
    info: str | None = None
    unless: str | None = None
    better: str = "lower"
    timing: bool = False

    def __post_init__(self) -> None:
        where = f"stats.front axis '{self.name}'"
        if bool(self.metrics) == (self.info is not None):
            raise ValueError(f"{where}: give per-question metrics or a run-level info key, not both or neither")
        if self.statistic != "mean" and not _PERCENTILE.match(self.statistic):
            raise ValueError(f"{where}: statistic must be 'mean' or a percentile such as 'p95', got {self.statistic!r}")
        if not isinstance(self.scale, (int, float)) or not math.isfinite(self.scale) or self.scale <= 0:
            raise ValueError(f"{where}: scale must be a positive number, got {self.scale!r}")

    @property
    def per_question(self) -> bool:
        return self.info is None

    def values(self, rows: list[dict[str, Any]]) -> dict[str, float]:
        """Question id -> scaled value, for the questions whose row has one of ``metrics``."""
        found = {}
        for row in rows:
            value = next((row[key] for key in self.metrics if _number(row.get(key))), None)
            if value is not None:
                found[row["question_id"]] = float(value) * self.scale
        return found

    def run_figure(self, info: dict[str, Any]) -> float | None:
        """The run-level figure from the run's info (a dotted key), scaled; None when absent."""
        value: Any = info
        for part in str(self.info).split("."):
            value = value.get(part) if isinstance(value, dict) else None
        return float(value) * self.scale if _number(value) else None

    def summarise(self, values: np.ndarray, axis: int = -1) -> np.ndarray | float:
        """``statistic`` of ``values`` along ``axis``."""
        if self.statistic == "mean":
            return np.mean(values, axis=axis)
        return np.percentile(values, int(self.statistic[1:]), axis=axis)


@dataclass(frozen=True)
class Resampling:
    """The bootstrap behind every per-question interval: ``resamples`` draws of the questions with
    replacement (``numpy.random.default_rng(seed)``), a ``1 - alpha`` percentile interval; two runs
    sharing fewer than ``min_questions`` questions with a value are not compared on that axis."""

    resamples: int
    alpha: float
    seed: int
    min_questions: int = 2

    def __post_init__(self) -> None:
        check_count(self.resamples, "stats.front.resamples", 1)
        check_probability(self.alpha, "stats.front.alpha")
        check_count(self.min_questions, "stats.front.min_questions", 2)

    def interval(self, statistic, samples: list[np.ndarray]) -> tuple[float, float, float]:
        """``statistic(*samples)`` and its percentile interval, the same question indices drawn
        for every sample (paired when there are several)."""
        n = len(samples[0])
        indices = np.random.default_rng(self.seed).integers(0, n, size=(self.resamples, n))
        drawn = statistic(*(sample[indices] for sample in samples))
        low, high = np.percentile(drawn, [100 * self.alpha / 2, 100 * (1 - self.alpha / 2)])
        return float(statistic(*samples)), float(low), float(high)


def run_interval(axis: Axis, values: dict[str, float], resampling: Resampling) -> tuple[float, float, float] | None:
    """One run's figure on a per-question axis with its bootstrap interval; None without values."""
    if not values:
        return None
    sample = np.asarray(list(values.values()), dtype=float)
    return resampling.interval(lambda x: axis.summarise(x), [sample])


def paired_difference(axis: Axis, a: dict[str, float], b: dict[str, float],
                      resampling: Resampling) -> tuple[float, float, float] | None:
    """``figure(b) - figure(a)`` over the questions both runs have a value for, with its paired
    bootstrap interval; None with fewer than ``min_questions`` such questions (no evidence either way)."""
    shared = sorted(a.keys() & b.keys())
    if len(shared) < resampling.min_questions:
        return None
    x = np.asarray([a[q] for q in shared], dtype=float)
    y = np.asarray([b[q] for q in shared], dtype=float)
    return resampling.interval(lambda p, q: axis.summarise(q) - axis.summarise(p), [x, y])


def compare_on_axis(axis: Axis, a: dict[str, float] | float | None, b: dict[str, float] | float | None,
                    resampling: Resampling, min_ratio: float) -> int:
    """-1 when run b is lower (better) than run a beyond noise on ``axis``, +1 when higher, else 0.

    ``a``/``b``: per-question values (a per-question axis) or the run-level figure."""
    if a is None or b is None:
        return 0
    if not axis.per_question:
        low, high = sorted((float(a), float(b)))
        if high <= 0 or (low > 0 and high / low < min_ratio):
            return 0
        return -1 if b < a else 1
    if axis.timing:  # beyond the run-to-run drift too, which one timing per run cannot show
        return _timing_move(axis, a, b, resampling, min_ratio)
    found = paired_difference(axis, a, b, resampling)
    if found is None:
        return 0
    _, low, high = found
    move = -1 if high < 0 else 1 if low > 0 else 0
    return move


def _timing_move(axis: Axis, a: dict[str, float], b: dict[str, float], resampling: Resampling,
                 min_ratio: float) -> int:
    """A timing axis: the paired bootstrap interval of the ratio of the two runs' figures (the larger
    over the smaller) must lie wholly at or above ``min_ratio``: beyond the per-question noise and the
    drift of a machine's load between the two runs' moments at once."""
    shared = sorted(a.keys() & b.keys())
    if len(shared) < resampling.min_questions:
        return 0
    x = np.asarray([a[q] for q in shared], dtype=float)
    y = np.asarray([b[q] for q in shared], dtype=float)
    figures = float(axis.summarise(x)), float(axis.summarise(y))
    if min(figures) <= 0 or figures[0] == figures[1]:
        return 0
    larger, smaller = (x, y) if figures[0] > figures[1] else (y, x)
    with np.errstate(divide="ignore", invalid="ignore"):
        _, low, _ = resampling.interval(lambda p, q: axis.summarise(p) / axis.summarise(q), [larger, smaller])
    if not low >= min_ratio:
        return 0
    return -1 if figures[1] < figures[0] else 1


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
