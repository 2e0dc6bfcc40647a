"""Sweep-level significance report: the ``stats`` config group's classes.

Takes each finished run's per-question table, picks the champion, compares every other run with
it (:func:`compare_sweep`) and returns a :class:`~harness.stats.sweep_report.StatsReport`, which
renders itself as a table, verdicts, a plot and per-run metrics. Knows nothing about MLflow: the
tracking layer prints and logs what this returns.
"""

from __future__ import annotations

import logging
import math
import textwrap
from typing import Any

from harness.console import LOG_WIDTH
from harness.stats._checks import check_count, check_effect_size, check_probability
from harness.stats.compare import TESTS
from harness.stats.correction import METHODS
from harness.stats.margin import questions_for_equivalence
from harness.stats.power import minimum_detectable_effect, minimum_detectable_effect_t, required_sample_size_z
from harness.stats.spec import DIRECTIONS, MetricSpec
from harness.stats.sweep import SweepResult, compare_sweep
from harness.stats.sweep_report import StatsReport

log = logging.getLogger(__name__)
# Per-question tables: run name -> list of rows ({"question_id": ..., "<suite>/<metric>": value, ...}).
Tables = dict[str, list[dict[str, Any]]]


class SweepStatistics:
    """Paired comparison of every run of a sweep with the champion (seed 003, section 7).

    Args:
        alpha: significance level.
        power: target power for sample-size figures.
        primary: ``{name, direction, margin}`` of the metric that decides the winner; a null name
            means the first ``headline`` metric the compared runs have. ``margin``: how much worse, in
            the metric's units, still counts as as good (equivalence and non-inferiority,
            :mod:`harness.stats.margin`).
        guards: ``[{name, direction, margin}]``; a significant regression beyond the margin
            makes the champion win, and a guard shown worse keeps a run off the front.
        test: ``t``, ``wilcoxon`` or ``permutation``; the p-value the verdict reads.
        resamples: bootstrap (and permutation) resamples.
        seed: seed of the resampling.
        correction: ``holm``, ``bonferroni``, ``bh`` or ``none``, across all comparisons.
        champion: a run name, or null for the best run on the primary metric.
        planning_effects: Cohen's d values whose required sample sizes are printed before a sweep.
        planning_sds: spreads of per-question differences for which the questions needed to show
            non-inferiority at the primary margin are printed before a sweep.
        headline: the leaderboard's metrics, in order (where a null primary is chosen from).
        front: the ``stats.front`` block (:class:`~harness.stats.front_settings.FrontSettings`);
            None: no ship-candidate front.
    """

    enabled = True

    def __init__(self, alpha: float, power: float, primary: dict, guards: list, test: str, resamples: int,
                 seed: int, correction: str, champion: str | None, planning_effects: list[float],
                 headline: list[str] = (), front: dict | None = None, planning_sds: list[float] = ()) -> None:
        if test not in TESTS:
            raise ValueError(f"stats.test must be one of {list(TESTS)}, got {test!r}")
        if correction not in METHODS:
            raise ValueError(f"stats.correction must be one of {sorted(METHODS)}, got {correction!r}")
        self.alpha, self.power = check_probability(alpha, "stats.alpha"), check_probability(power, "stats.power")
        self.test, self.correction = str(test), str(correction)
        self.resamples, self.seed = check_count(resamples, "stats.resamples", 1), int(seed)
        if champion is not None and not str(champion).strip():
            raise ValueError("stats.champion must be a run name or null, got an empty string")
        self.champion = champion
        self.planning_effects = [check_effect_size(d, "stats.planning_effects") for d in planning_effects]
        self.planning_sds = [check_effect_size(sd, "stats.planning_sds") for sd in planning_sds]
        self.primary_name, self.primary_direction = primary.get("name"), primary["direction"]
        if primary.get("margin") is None:
            raise ValueError("stats.primary.margin is required: how much worse, in the primary metric's units, "
                             "still counts as as good (e.g. 0.01 on a 0-1 scale)")
        self.primary_margin = float(primary["margin"])
        if self.primary_direction not in DIRECTIONS:
            raise ValueError(f"stats.primary.direction must be one of {list(DIRECTIONS)}, "
                             f"got {self.primary_direction!r}")
        self.headline = list(headline)
        if self.primary_name is None and not self.headline:
            raise ValueError("stats.primary.name is null and there is no report.headline to choose it from")
        self.guards = [MetricSpec(g["name"], g["direction"], "guard", float(g["margin"])) for g in guards]
        self.front = None
        if front is not None:
            from harness.stats.front_settings import FrontSettings

            self.front = FrontSettings(**front)

    def primary_for(self, tables: Tables) -> MetricSpec:
        """The configured primary metric, or the first headline metric every run has a value of.

        A null primary whose first headline choice some runs lack (an app swept over ``top_k`` has no
        ``ndcg_at_5`` in its ``top_k=3`` run) is the first headline metric that every run has, and a
        warning says so; a named one that some runs lack is an error naming them and the fix.
        """
        name = self.primary_name
        if name is not None:
            lacking = [run for run, rows in tables.items() if not _has_values(rows, name)]
            if lacking:
                shared = [m for m in self.headline if all(_has_values(rows, m) for rows in tables.values())]
                raise ValueError(f"stats: the primary metric '{name}' (stats.primary.name) has no value in run(s) "
                                 f"{sorted(lacking)}: name one every run has ({shared or 'none in report.headline'}), "
                                 f"or score every run at the same cut-offs (an app: app.top_k=<the largest k>)")
        else:
            shared = [m for m in self.headline if all(_has_values(rows, m) for rows in tables.values())]
            if not shared:
                raise ValueError(f"stats: none of the headline metrics {self.headline} is in the per-question "
                                 f"results of every run; set stats.primary.name")
            name = shared[0]
            first = next((m for m in self.headline if any(_has_values(rows, m) for rows in tables.values())), name)
            if first != name:
                lacking = sorted(run for run, rows in tables.items() if not _has_values(rows, first))
                log.warning("stats: the primary metric is %s, the first headline metric every run has: %s is missing "
                            "from run(s) %s (set stats.primary.name to choose; an app scored at its own top_k: "
                            "app.top_k=<the largest k> scores every run at the same cut-offs)", name, first, lacking)
        return MetricSpec(name, self.primary_direction, "primary", self.primary_margin)

    def plan(self, n_questions: int) -> str:
        """The power paragraph printed before a sweep: what this many questions can detect."""
        lines = [f"Power planning (alpha={self.alpha:g}, power={self.power:g}, n={n_questions} questions):"]
        if n_questions >= 2:
            lines.append(f"  minimum detectable effect: Cohen's d = "
                         f"{minimum_detectable_effect(n_questions, self.alpha, self.power):.3f} (z), "
                         f"{minimum_detectable_effect_t(n_questions, self.alpha, self.power):.3f} (t)")
        needed = ", ".join(f"d={d:g}: {required_sample_size_z(d, self.alpha, self.power)}"
                           for d in self.planning_effects)
        lines.append(f"  questions needed for {needed}")
        margin = self.primary_margin
        if margin > 0 and self.planning_sds:
            shown = ", ".join(f"sd {sd:g}: {questions_for_equivalence(sd, margin, self.alpha, self.power)}"
                              for sd in self.planning_sds)
            lines.append(f"  questions needed to show two equally good configurations equivalent at the margin "
                         f"{margin:g} on the primary metric (power {self.power:g}, before correction), by the "
                         f"spread of their per-question differences: {shown}")
        return "\n".join(textwrap.fill(line, LOG_WIDTH, subsequent_indent="    ") for line in lines)

    def compare(self, tables: Tables) -> StatsReport:
        """Compares every run with the champion; raises ValueError/MisalignedError on bad input."""
        if len(tables) < 2:
            raise ValueError(f"need at least two finished runs to compare, got {len(tables)}")
        metrics = [self.primary_for(tables), *self.guards]
        scores = {name: self._scores(name, rows, metrics) for name, rows in tables.items()}
        champion = self._champion(scores, metrics[0])
        challengers = {name: s for name, s in scores.items() if name != champion}
        result = compare_sweep(scores[champion], challengers, metrics, self.alpha, self.test,
                               self.resamples, self.seed, self.power, self.correction,
                               front=self.front is not None and self.front.enabled,
                               pairs_share=self.front.pairs_share if self.front is not None else 0.5,
                               champion_name=champion)
        return StatsReport(champion=champion, result=result, alpha=self.alpha, run_metrics=self._run_metrics(result),
                           settings=self.settings(metrics[0]))

    def ship_front(self, tables: Tables, infos: dict[str, dict[str, Any]], report: StatsReport):
        """The quality-cost-latency front of the compared runs (:mod:`harness.stats.front`), or
        None when ``stats.front`` is off; ``report``: what :meth:`compare` returned for ``tables``."""
        if self.front is None or not self.front.enabled:
            return None
        decision = report.result.decision
        return self.front.compute(tables, infos, decision)

    def settings(self, primary: MetricSpec) -> dict[str, Any]:
        """The constructor's arguments as used, with the primary metric resolved."""
        return {"alpha": self.alpha, "power": self.power,
                "primary": {"name": primary.name, "direction": primary.direction, "margin": primary.margin},
                "guards": [{"name": g.name, "direction": g.direction, "margin": g.margin} for g in self.guards],
                "test": self.test, "resamples": self.resamples, "seed": self.seed, "correction": self.correction,
                "champion": self.champion, "planning_effects": self.planning_effects, "planning_sds": self.planning_sds,
                "headline": self.headline}

    @staticmethod
    def _scores(run: str, rows: list[dict[str, Any]], metrics: list[MetricSpec]) -> dict[str, dict[str, float | None]]:
        available = set().union(*(row.keys() for row in rows)) if rows else set()
        missing = [m.name for m in metrics if m.name not in available]
        if missing:
            metric_keys = sorted(k for k in available if "/" in k)
            raise ValueError(f"stats: metric(s) {missing} not in the per-question results of run '{run}' "
                             f"(available: {metric_keys})")
        return {m.name: {row["question_id"]: row.get(m.name) for row in rows} for m in metrics}

    def _champion(self, scores: dict[str, dict[str, dict[str, float | None]]], primary: MetricSpec) -> str:
        if self.champion is not None:
            if self.champion not in scores:
                raise ValueError(f"stats.champion '{self.champion}' is not among the runs: {sorted(scores)}")
            return self.champion
        sign = 1.0 if primary.direction == "higher" else -1.0

        def mean(name: str) -> float:
            values = [v for v in scores[name][primary.name].values() if v is not None and not math.isnan(v)]
            return sign * sum(values) / len(values) if values else -math.inf

        return max(sorted(scores), key=mean)

    def _run_metrics(self, result: SweepResult) -> dict[str, dict[str, float]]:
        """Per challenger: ``stats/<figure>/<metric>`` values for its own run."""
        figures = {"mean_diff": "mean_difference", "ci_low": "ci_low", "ci_high": "ci_high",
                   "cohens_d": "cohens_d", "p_value": "p_value", f"p_{self.correction}": "p_corrected",
                   "power": "achieved_power", "n_required": "n_required_z"}
        out: dict[str, dict[str, float]] = {}
        for challenger in result.challengers:
            values: dict[str, float] = {}
            for comparison in challenger.metrics:
                for label, attribute in figures.items():
                    value = getattr(comparison, attribute)
                    if value is not None:
                        values[f"stats/{label}/{comparison.spec.name}"] = float(value)
            values["stats/challenger_wins"] = float(challenger.verdict.winner == "challenger")
            out[challenger.name] = values
        return out


class NoStatistics:
    """``stats=none``: no power planning, no comparison."""

    enabled = False


def _has_values(rows: list[dict[str, Any]], name: str) -> bool:
    """Whether some row of a run's per-question table has a value (not null, not NaN) of ``name``."""
    return any(row.get(name) is not None and not (isinstance(row.get(name), float) and math.isnan(row[name]))
               for row in rows)
