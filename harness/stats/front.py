"""Which configuration to ship: the runs of a sweep that no other run dominates on quality, cost
and latency.

Run B dominates run A when B is not significantly worse than A on the primary metric (the sweep's
paired test and correction), is worse beyond noise on no cost or latency axis
(:mod:`harness.stats.front_axes`), and is better beyond noise on at least one axis, quality
included (significantly better). The front is the set of runs no run dominates: a run tied with
the champion and three times cheaper is on it; a run worse and dearer is not; two runs tied and
priced alike do not dominate each other. Pure: it reads per-question tables and run facts and
returns a :class:`Front`; the tracking layer prints and logs it.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from harness.stats.front_axes import Axis, Resampling, compare_on_axis, run_interval
from harness.stats.spec import MetricSpec

Relations = dict[tuple[str, str], int]  # (a, b) -> +1: b significantly better than a, -1: worse, 0: tied


@dataclass(frozen=True)
class Figure:
    """A run's figure on one axis and its bootstrap interval (None where it was measured once)."""

    value: float | None
    low: float | None = None
    high: float | None = None


@dataclass
class FrontRun:
    """One run's place: its figures, whom it is dominated by (None: on the front), how its quality
    compares with the champion's (+1 better, 0 tied, -1 worse) and how many times lower than the
    champion's it is on each axis where it is lower beyond noise."""

    name: str
    quality: Figure
    axes: dict[str, Figure]
    dominated_by: str | None = None
    vs_champion: int = 0
    ratios: dict[str, float] = field(default_factory=dict)

    @property
    def on_front(self) -> bool:
        return self.dominated_by is None


@dataclass
class Front:
    """The front of a sweep: every compared run in quality order (the champion first)."""

    champion: str
    primary: dict[str, str]
    axes: list[Axis]
    runs: list[FrontRun]
    settings: dict[str, Any] = field(default_factory=dict)

    @property
    def members(self) -> list[str]:
        return [run.name for run in self.runs if run.on_front]

    def run(self, name: str) -> FrontRun:
        return next(run for run in self.runs if run.name == name)

    def reason(self, name: str, short: dict[str, str] | None = None) -> str:
        """Why a run is on the front (``tied with the champion, 3.1x cheaper``) or not (``dominated by x``)."""
        short = short or {}
        run = self.run(name)
        if not run.on_front:
            return f"dominated by {short.get(run.dominated_by, run.dominated_by)}"
        if name == self.champion:
            return f"the champion (best {self.primary['name']})"
        words = {axis.name: axis.better for axis in self.axes}
        quality = {1: "better than the champion", 0: "tied with the champion", -1: "worse than the champion"}
        gains = [f"{ratio:.1f}x {words[axis]}" if ratio != float("inf") else words[axis]
                 for axis, ratio in run.ratios.items()]
        if not gains:
            gains = ["none as good is lower on cost or latency beyond noise"]
        return ", ".join([quality[run.vs_champion], *gains])

    def to_dict(self) -> dict[str, Any]:
        return {"champion": self.champion, "primary": self.primary, "members": self.members,
                "axes": [asdict(axis) for axis in self.axes], "settings": self.settings,
                "runs": [asdict(run) | {"front": run.on_front} for run in self.runs]}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Front:
        runs = [FrontRun(name=r["name"], quality=Figure(**r["quality"]),
                         axes={k: Figure(**v) for k, v in r["axes"].items()}, dominated_by=r["dominated_by"],
                         vs_champion=r["vs_champion"], ratios=r["ratios"]) for r in data["runs"]]
        axes = [Axis(**{**a, "metrics": tuple(a["metrics"])}) for a in data["axes"]]
        return cls(champion=data["champion"], primary=data["primary"], axes=axes, runs=runs,
                   settings=data.get("settings", {}))


def recorded_figure(run: dict[str, Any], key: str) -> tuple[float | None, float | None, float | None]:
    """(value, low, high) of a run of :meth:`Front.to_dict` on ``quality`` or an axis's name."""
    found = run["quality"] if key == "quality" else run["axes"][key]
    return found["value"], found["low"], found["high"]


def compute_front(tables: dict[str, list[dict[str, Any]]], infos: dict[str, dict[str, Any]], primary: MetricSpec,
                  champion: str, relations: Relations, axes: list[Axis], resampling: Resampling,
                  min_ratio: float) -> Front:
    """The front of ``tables`` (run name -> per-question rows; ``infos``: run name -> run info).

    Args:
        primary: the quality metric. champion: the sweep's champion.
        relations: quality of every ordered pair of runs (:func:`harness.stats.front_quality.quality_relations`).
        axes: the cost and latency axes (already chosen for this sweep, :func:`choose_axes`).
        resampling: the bootstrap of per-question axes. min_ratio: beyond noise on a run-level axis.
    """
    names = list(tables)
    data = {name: {axis.name: axis.values(tables[name]) if axis.per_question else axis.run_figure(infos.get(name, {}))
                   for axis in axes} for name in names}
    sign = 1.0 if primary.direction == "higher" else -1.0
    quality = {name: _quality(tables[name], primary.name, resampling) for name in names}

    moves: dict[tuple[str, str, str], int] = {}

    def lower(axis: Axis, a: str, b: str) -> int:  # -1: b lower than a beyond noise, +1 higher
        if (axis.name, b, a) in moves:  # the same resampled questions, the interval mirrored
            return -moves[(axis.name, b, a)]
        if (axis.name, a, b) not in moves:
            moves[(axis.name, a, b)] = compare_on_axis(axis, data[a][axis.name], data[b][axis.name], resampling,
                                                       min_ratio)
        return moves[(axis.name, a, b)]

    def dominates(b: str, a: str) -> bool:
        if relations[(a, b)] < 0:
            return False
        moves = [lower(axis, a, b) for axis in axes]
        return all(move <= 0 for move in moves) and (relations[(a, b)] > 0 or any(move < 0 for move in moves))

    def rank(name: str) -> tuple:  # the champion first, then by quality
        value = quality[name].value
        return name != champion, np.inf if value is None else -sign * value

    order = sorted(names, key=rank)
    runs = []
    for name in order:
        dominators = [other for other in order if other != name and dominates(other, name)]
        ratios = {axis.name: _ratio(axis, data[champion][axis.name], data[name][axis.name])
                  for axis in axes if name != champion and lower(axis, champion, name) < 0}
        runs.append(FrontRun(name=name, quality=quality[name],
                             axes={axis.name: _figure(axis, data[name][axis.name], resampling) for axis in axes},
                             dominated_by=dominators[0] if dominators else None,
                             vs_champion=0 if name == champion else relations[(champion, name)], ratios=ratios))
    if not any(run.on_front for run in runs):  # a cycle of ties (each beaten by the next): keep the champion
        runs[0].dominated_by = None
    settings = {"resamples": resampling.resamples, "alpha": resampling.alpha, "seed": resampling.seed,
                "min_questions": resampling.min_questions, "min_ratio": min_ratio}
    return Front(champion=champion, primary={"name": primary.name, "direction": primary.direction},
                 axes=list(axes), runs=runs, settings=settings)


def choose_axes(tables: dict[str, list[dict[str, Any]]], infos: dict[str, dict[str, Any]],
                answering: list[Axis], retrieval: list[Axis]) -> list[Axis]:
    """The ``answering`` axes when some run answered questions, else the ``retrieval`` ones; an axis
    no run has a non-zero value on is left out (a local model priced 0 has no dollar cost), and so
    is an axis whose ``unless`` axis is kept."""
    answered = any(row.get("answer") is not None for rows in tables.values() for row in rows)
    kept = []
    for axis in answering if answered else retrieval:
        found = [v for name in tables for v in (axis.values(tables[name]).values() if axis.per_question
                                               else [axis.run_figure(infos.get(name, {}))]) if v is not None]
        if any(value != 0 for value in found):
            kept.append(axis)
    names = {axis.name for axis in kept}
    return [axis for axis in kept if axis.unless not in names]


def _quality(rows: list[dict[str, Any]], metric: str, resampling: Resampling) -> Figure:
    values = Axis(metric, metrics=(metric,)).values(rows)
    found = run_interval(Axis(metric, metrics=(metric,)), values, resampling)
    return Figure(*found) if found else Figure(None)


def _figure(axis: Axis, data, resampling: Resampling) -> Figure:
    if not axis.per_question:
        return Figure(data)
    found = run_interval(axis, data, resampling)
    return Figure(*found) if found else Figure(None)


def _ratio(axis: Axis, champion, run) -> float:
    """How many times lower ``run`` is than the champion on ``axis`` (inf when it is zero)."""
    if axis.per_question:
        shared = sorted(champion.keys() & run.keys())
        champion = axis.summarise(np.asarray([champion[q] for q in shared]))
        run = axis.summarise(np.asarray([run[q] for q in shared]))
    return float(champion) / float(run) if run else float("inf")
