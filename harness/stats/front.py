"""Which configuration to ship: the runs of a sweep that no other run dominates on quality, cost
and latency.

Run B dominates run A when B is itself shown as good as the champion (a run that is not, an
``undecided`` one say, hides no ship candidate), B is shown as good as A on the primary metric (``better``,
``equivalent`` or ``non_inferior`` at the margin, under the sweep's correction:
:mod:`harness.stats.margin`), no guard of B is shown ``worse`` than A's, B is worse beyond noise on
no cost or latency axis (:mod:`harness.stats.front_axes`), and B is better beyond noise on at least
one axis or ``better`` in quality. "Not significantly worse" is not enough: absence of evidence is
not equivalence.

The ship candidates (the front) are the runs nothing dominates that are shown as good as the
champion (the champion itself included). A run cheaper or faster than the champion whose quality
is ``undecided`` is not a candidate: it is listed apart with the questions that would decide it. A
run shown worse than the champion, on the primary or a guard, is neither. Pure: it reads per-question
tables and run facts and returns a :class:`Front`; the tracking layer prints and logs it.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from harness.stats.front_axes import Axis, Resampling, compare_on_axis, run_interval
from harness.stats.margin import AS_GOOD, MarginVerdict
from harness.stats.spec import MetricSpec

# (a, b) -> metric name -> the verdict of run b against run a (harness.stats.front_quality).
Relations = dict[tuple[str, str], dict[str, MarginVerdict]]
WORDS = {"better": "better than the champion", "equivalent": "equivalent to the champion",
         "non_inferior": "non-inferior to the champion", "undecided": "undecided against the champion",
         "worse": "worse than the champion"}


@dataclass(frozen=True)
class Figure:
    """A run's figure on one axis and its bootstrap interval (None where it was measured once)."""

    value: float | None
    low: float | None = None
    high: float | None = None


@dataclass
class FrontRun:
    """One run's place: its figures; whom it is dominated by (None: nothing); its primary verdict
    against the champion (None for the champion itself) with the questions that would decide an
    ``undecided`` one; the guards shown worse than the champion's; and how many times lower than the
    champion's it is on each axis where it is lower beyond noise."""

    name: str
    quality: Figure
    axes: dict[str, Figure]
    dominated_by: str | None = None
    versus_champion: str | None = None
    questions_needed: int | None = None
    worse_guards: list[str] = field(default_factory=list)
    ratios: dict[str, float] = field(default_factory=dict)

    @property
    def shown_as_good(self) -> bool:
        """The champion, or shown as good as it on the primary metric with no guard shown worse."""
        return self.versus_champion is None or (self.versus_champion in AS_GOOD and not self.worse_guards)

    @property
    def on_front(self) -> bool:
        """A ship candidate: nothing dominates it and it is shown as good as the champion."""
        return self.dominated_by is None and self.shown_as_good

    @property
    def undecided(self) -> bool:
        """Cheaper or faster than the champion beyond noise, nothing dominates it, and its quality
        against the champion's is undecided: more questions would tell whether to ship it."""
        return (self.dominated_by is None and self.versus_champion == "undecided" and not self.worse_guards
                and bool(self.ratios))


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

    @property
    def undecided(self) -> list[str]:
        return [run.name for run in self.runs if run.undecided]

    def run(self, name: str) -> FrontRun:
        return next(run for run in self.runs if run.name == name)

    def reason(self, name: str, short: dict[str, str] | None = None) -> str:
        """Why a run is on the front (``equivalent to the champion, 3.1x cheaper``), undecided
        (``undecided against the champion: 1.6x cheaper; about 900 more questions would decide it``)
        or neither (``dominated by x``, ``worse than the champion``)."""
        short = short or {}
        run = self.run(name)
        if run.dominated_by is not None:
            return f"dominated by {short.get(run.dominated_by, run.dominated_by)}"
        if name == self.champion:
            return f"the champion (best {self.primary['name']})"
        words = {axis.name: axis.better for axis in self.axes}
        gains = [f"{ratio:.1f}x {words[axis]}" if ratio != float("inf") else words[axis]
                 for axis, ratio in run.ratios.items()]
        margin = self.primary.get("margin")
        quality = WORDS[run.versus_champion] + (f" at margin {margin:g}" if margin is not None
                                                and run.versus_champion in ("equivalent", "non_inferior") else "")
        if run.worse_guards:
            return f"{quality}; guard {', '.join(run.worse_guards)} worse than the champion's"
        if run.undecided:
            needed = run.questions_needed
            more = (f"; about {needed} paired questions would decide it" if needed is not None else
                    "; no number of questions at the observed difference would decide it")
            return f"{quality}: {', '.join(gains)}{more}"
        if not run.on_front:
            return quality + (f" ({', '.join(gains)})" if gains else "")
        if not gains:
            gains = ["none as good is lower on cost or latency beyond noise"]
        return ", ".join([quality, *gains])

    def to_dict(self) -> dict[str, Any]:
        return {"champion": self.champion, "primary": self.primary, "members": self.members,
                "undecided": self.undecided, "axes": [asdict(axis) for axis in self.axes], "settings": self.settings,
                "runs": [asdict(run) | {"front": run.on_front, "undecided": run.undecided} for run in self.runs]}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Front:
        runs = [FrontRun(name=r["name"], quality=Figure(**r["quality"]),
                         axes={k: Figure(**v) for k, v in r["axes"].items()}, dominated_by=r["dominated_by"],
                         versus_champion=r["versus_champion"], questions_needed=r["questions_needed"],
                         worse_guards=list(r["worse_guards"]), ratios=r["ratios"]) for r in data["runs"]]
        axes = [Axis(**{**a, "metrics": tuple(a["metrics"])}) for a in data["axes"]]
        return cls(champion=data["champion"], primary=data["primary"], axes=axes, runs=runs,
                   settings=data.get("settings", {}))


def place(run: dict[str, Any], short: dict[str, str]) -> str:
    """A run's ``harness.front`` tag: ``front``, ``undecided``, ``dominated by X`` or its verdict."""
    if run["front"]:
        return "front"
    if run.get("undecided"):
        return "undecided"
    if run["dominated_by"] is not None:
        return f"dominated by {short[run['dominated_by']]}"
    return "worse" if run.get("versus_champion") == "worse" or run.get("worse_guards") else \
        str(run.get("versus_champion"))


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
        relations: every ordered pair's verdicts on the primary metric and the guards
            (:func:`harness.stats.front_quality.quality_relations`).
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

    def as_good_as_champion(b: str) -> bool:
        return b == champion or (relations[(champion, b)][primary.name].verdict in AS_GOOD
                                 and not worse_guards(champion, b))

    def dominates(b: str, a: str) -> bool:  # only a run shown as good as the champion hides another
        verdicts = relations[(a, b)]
        if not as_good_as_champion(b) or verdicts[primary.name].verdict not in AS_GOOD or worse_guards(a, b):
            return False
        moves = [lower(axis, a, b) for axis in axes]
        return all(move <= 0 for move in moves) and (verdicts[primary.name].verdict == "better"
                                                    or any(move < 0 for move in moves))

    def worse_guards(a: str, b: str) -> list[str]:  # b's guards shown worse than a's
        return [metric for metric, verdict in relations[(a, b)].items()
                if metric != primary.name and verdict.verdict == "worse"]

    def rank(name: str) -> tuple:  # the champion first, then by quality
        value = quality[name].value
        return name != champion, np.inf if value is None else -sign * value

    order = sorted(names, key=rank)
    runs = []
    for name in order:
        dominators = [other for other in order if other != name and dominates(other, name)]
        ratios = {axis.name: _ratio(axis, data[champion][axis.name], data[name][axis.name])
                  for axis in axes if name != champion and lower(axis, champion, name) < 0}
        versus = None if name == champion else relations[(champion, name)][primary.name]
        runs.append(FrontRun(name=name, quality=quality[name],
                             axes={axis.name: _figure(axis, data[name][axis.name], resampling) for axis in axes},
                             dominated_by=dominators[0] if dominators else None,
                             versus_champion=versus.verdict if versus else None,
                             questions_needed=versus.questions_needed if versus else None,
                             worse_guards=[] if name == champion else worse_guards(champion, name), ratios=ratios))
    if not any(run.on_front for run in runs):  # a cycle (each dominated by the next): keep the champion
        runs[0].dominated_by = None
    settings = {"resamples": resampling.resamples, "alpha": resampling.alpha, "seed": resampling.seed,
                "min_questions": resampling.min_questions, "min_ratio": min_ratio}
    return Front(champion=champion, primary={"name": primary.name, "direction": primary.direction,
                                             "margin": primary.margin},
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
