"""The decision for anyone's per-question scores: which configurations are better, as good or worse
than the champion at a stated margin, and which to ship (``harness.api.decide``).

The same path decides a sweep's statistics table, its front and ``harness compare``: the champion
family (every challenger on the primary metric and each guard) is decided at one error budget
(:func:`harness.stats.family.decide_family`), each challenger's winner is read from its verdicts
(:func:`harness.stats.verdict.winner`), and with costs the front's pairs form a second family with the
rest of the budget (:mod:`harness.stats.front_quality`) before the front is drawn
(:func:`harness.stats.front.compute_front`).

Example:
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> base = rng.uniform(size=400)
    >>> result = decide({"a": base, "b": base + rng.normal(0, 0.01, 400), "c": base - 0.2}, champion="a")
    >>> result.verdicts[["verdict", "winner"]].values.tolist()
    [['equivalent', 'none'], ['worse', 'champion']]
    >>> result.ship
    ['a', 'b']
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from harness.config.schemas.choices import StatTest, values as choice_values
from harness.stats._checks import check_count, check_probability
from harness.stats.correction import METHODS
from harness.stats.family import decide_family
from harness.stats.front import Front, compute_front
from harness.stats.front_axes import Axis, Resampling
from harness.stats.margin import AS_GOOD, MarginVerdict
from harness.stats.spec import DIRECTIONS, MetricSpec
from harness.stats.verdict import Verdict, winner

VERDICT_COLUMNS = ("metric", "n", "diff", "ci_low", "ci_high", "ci_level", "p", "p_adjusted", "verdict",
                   "questions_needed", "reason", "winner", "winner_reason")


@dataclass(frozen=True)
class Comparison:
    """One challenger against the champion on one metric: the family's figures and verdict."""

    challenger: str
    spec: MetricSpec
    n: int
    mean_difference: float | None
    sd: float | None
    p: float | None
    p_adjusted: float | None
    ci_level: float | None
    decision: MarginVerdict


@dataclass
class Decision:
    """What :func:`decide` found.

    Attributes:
        champion: the configuration every other is compared with.
        verdicts: one row per challenger (indexed by name) on the primary metric: ``diff`` (mean of
            ``challenger - champion``), ``ci_low``/``ci_high`` at confidence ``1 - ci_level``, ``p``
            (the test's), ``p_adjusted`` (corrected; compare it with ``alpha``), ``verdict``,
            ``questions_needed`` (for ``undecided``), ``reason``, ``winner`` and ``winner_reason``.
        comparisons: every (challenger, metric), the guards included, as ``Comparison`` records.
        ship: the configurations to ship: with costs, the front (shown as good as the champion and
            dominated by none); without, the champion and every challenger shown as good as it.
        undecided: configurations whose quality against the champion is undecided (with costs: only
            those cheaper beyond noise, which more questions would make worth shipping).
        front: the front with costs (:class:`~harness.stats.front.Front`), else None.
        settings: the arguments as used.
    """

    champion: str
    verdicts: Any
    comparisons: list[Comparison]
    ship: list[str]
    undecided: list[str]
    front: Front | None = None
    settings: dict[str, Any] = field(default_factory=dict)
    metrics: list[MetricSpec] = field(default_factory=list)

    def front_for(self, tables: dict[str, list[dict[str, Any]]], infos: dict[str, dict[str, Any]],
                  axes: list[Axis], resampling: Resampling, min_ratio: float) -> Front:
        """Draw the front on ``axes`` (:func:`ship_front`; ``tables``: run -> per-question rows with
        every metric, ``infos``: run -> run-level figures), its pairs at this decision's reserved
        share of the budget; sets ``front``, ``ship`` and ``undecided`` and returns the front.

        Raises:
            ValueError: the decision was made without ``front`` (its budget has no share left for pairs).
        """
        if not self.settings.get("front"):
            raise ValueError("this decision was made with front=False: its champion family spent the whole alpha")
        s = self.settings
        self.front = ship_front(tables, infos, self.metrics, self.champion, self.comparisons, axes, resampling,
                                min_ratio, test=s["test"], correction=s["correction"], alpha=s["alpha"],
                                share=s["pairs_share"], power=s["power"], resamples=s["resamples"], seed=s["seed"])
        self.ship, self.undecided = self.front.members, self.front.undecided
        return self.front

    def to_dict(self) -> dict[str, Any]:
        """Plain data (JSON-ready): champion, verdicts by challenger, ship, undecided, front, settings."""
        rows = {name: {k: _plain(v) for k, v in row.items()} for name, row in self.verdicts.to_dict("index").items()}
        guards = [{"challenger": c.challenger, "metric": c.spec.name, "verdict": c.decision.verdict,
                   "reason": c.decision.reason} for c in self.comparisons if c.spec.role == "guard"]
        return {"champion": self.champion, "verdicts": rows, "guards": guards, "ship": list(self.ship),
                "undecided": list(self.undecided), "front": self.front.to_dict() if self.front else None,
                "settings": self.settings}


def decide(values: Mapping[str, Sequence[float | None]] | Any, *, champion: str | None = None, direction: str = "higher", margin: float = 0.01,
           test: str = "t", correction: str = "holm", alpha: float = 0.05,
           guards: Mapping[str, Mapping[str, Any]] | None = None,
           costs: Mapping[str, Any] | None = None, power: float = 0.8, resamples: int = 1000, seed: int = 0,
           pairs_share: float = 0.5, metric: str = "primary", front: bool | None = None) -> Decision:
    """Decide which configurations are better, as good or worse than the champion, and what to ship.

    Args:
        values: the primary metric per configuration: a mapping name -> per-question sequence (all
            aligned by position), or a pandas DataFrame with one column per configuration and one
            row per question. NaN or None: that question has no value (its pair is skipped).
        champion: the configuration to compare with; None: the best on the mean.
        direction: ``"higher"`` or ``"lower"`` is better. margin: how much worse, in the metric's
            units, still counts as as good.
        test: ``"t"``, ``"wilcoxon"`` or ``"permutation"`` (the p-values; the intervals are of the mean).
        correction: ``"holm"``, ``"bonferroni"``, ``"bh"`` or ``"none"`` (:mod:`harness.stats.family`).
        alpha: the error budget of every claim made, the front's included.
        guards: metric name -> ``{"values": <as values>, "margin": float, "direction": str}``; a
            guard shown worse makes the champion win and keeps a run off the front.
        costs: axis name -> mapping name -> per-question cost (lower is better), for the front; two
            runs differ on an axis when the paired bootstrap interval of their mean difference leaves out 0.
        power: target power of ``questions_needed``. resamples, seed: the bootstraps' and permutations'.
        pairs_share: with a front, the fraction of ``alpha`` spent on its pairs (the champion
            family spends the rest).
        metric: the primary metric's name, as the tables show it.
        front: whether a front is drawn, whose pairs get ``pairs_share`` of the budget; None: when
            ``costs`` are given. A caller with axes of its own (the sweep's percentiles and run
            figures) passes True and draws it with :meth:`Decision.front_for`.

    Raises:
        ValueError: a bad argument, naming it (unaligned lengths, an unknown champion, ...).
    """
    settings = _checked(direction, margin, test, correction, alpha, power, resamples, pairs_share) | {"seed": seed}
    primary = _frame(values, "values")
    names = list(primary.columns)
    metrics = {str(metric): (MetricSpec(str(metric), direction, "primary", float(margin)), primary)}
    for metric, spec in (guards or {}).items():
        where = f"guards[{metric!r}]"
        if not isinstance(spec, Mapping) or "values" not in spec:
            raise ValueError(f"{where} must be a mapping with 'values', 'margin' and 'direction'")
        frame = _frame(spec["values"], f"{where}['values']")
        if list(frame.columns) != names or len(frame) != len(primary):
            raise ValueError(f"{where}['values'] must have the same configurations {names} and {len(primary)} "
                             f"questions as values; got {list(frame.columns)} and {len(frame)}")
        metrics[str(metric)] = (MetricSpec(str(metric), spec.get("direction", "higher"), "guard",
                                           float(spec.get("margin", 0.0))), frame)
    champion = _champion(primary, champion, direction)
    challengers = [name for name in names if name != champion]
    front = bool(costs) if front is None else bool(front)
    share = 1 - pairs_share if front and len(challengers) >= 2 else 1.0  # no pairs without two challengers
    comparisons = _champion_family(metrics, champion, challengers, test, correction, alpha, share, power,
                                   resamples, seed)
    won = winners(comparisons)
    verdicts = _verdict_table(comparisons, challengers, won)
    # from the records, not the table: pandas' string comparisons were a third of a small call's time
    kept = [c for c in comparisons if c.spec.role == "primary" and won[c.challenger].winner != "champion"]
    ship = [champion, *(c.challenger for c in kept if c.decision.verdict in AS_GOOD)]
    undecided = [c.challenger for c in kept if c.decision.verdict == "undecided"]
    decision = Decision(champion, verdicts, comparisons, ship, undecided, None,
                        settings | {"champion": champion, "front": front, "family_alpha": alpha * share},
                        [spec for spec, _ in metrics.values()])
    if costs:
        tables, axes = _cost_tables(metrics, costs, names)
        decision.front_for(tables, {}, axes, Resampling(resamples, alpha, seed), 1.0)
    return decision


def ship_front(tables: dict[str, list[dict[str, Any]]], infos: dict[str, dict[str, Any]], metrics: list[MetricSpec],
               champion: str, comparisons: Sequence[Any], axes: list[Axis], resampling: Resampling, min_ratio: float,
               **family: Any) -> Front:
    """The front of ``tables`` given the champion family's ``comparisons`` (records with ``challenger``,
    or a ``name`` -> comparisons mapping's flattening): the pairs' family decided with ``family``'s
    settings (:func:`~harness.stats.front_quality.quality_relations`), then :func:`compute_front`."""
    from harness.stats.front_quality import quality_relations

    versus: dict[str, list[Any]] = {}
    for c in comparisons:
        versus.setdefault(c.challenger, []).append(c)
    relations = quality_relations(tables, metrics, champion, versus, **family)
    primary = next(m for m in metrics if m.role == "primary")
    return compute_front(tables, infos, primary, champion, relations, axes, resampling, min_ratio)


def winners(comparisons: Sequence[Any]) -> dict[str, Verdict]:
    """Each challenger's winner from its comparisons' verdicts (records with ``challenger``,
    ``spec`` and ``decision``), in the order the challengers first appear."""
    found: dict[str, Verdict] = {}
    by_name: dict[str, list[Any]] = {}
    for c in comparisons:
        by_name.setdefault(c.challenger, []).append(c)
    for name, own in by_name.items():
        primary = next(c for c in own if c.spec.role == "primary")
        found[name] = winner((primary.spec.name, primary.decision),
                             [(c.spec.name, c.decision) for c in own if c.spec.role == "guard"])
    return found


def _champion_family(metrics: dict[str, tuple[MetricSpec, Any]], champion: str, challengers: list[str], test: str,
                     correction: str, alpha: float, share: float, power: float, resamples: int,
                     seed: int) -> list[Comparison]:
    keys, differences = [], []
    for spec, frame in metrics.values():
        matrix = frame.to_numpy(dtype=float)
        column = {name: i for i, name in enumerate(frame.columns)}
        reference = matrix[:, column[champion]]
        for name in challengers:
            d = matrix[:, column[name]] - reference
            keys.append((name, spec))
            differences.append(d[~np.isnan(d)])
    if not keys:
        return []
    family = decide_family(differences, [s.margin for _, s in keys], [s.direction for _, s in keys], test,
                           correction, alpha, share, power, resamples, seed)
    found = []
    for k, (name, spec) in enumerate(keys):
        n = int(family.n[k])
        found.append(Comparison(name, spec, n, float(family.mean[k]) if n else None,
                                float(family.sd[k]) if n >= 2 else None, family.p[k], family.p_adjusted[k],
                                family.level if n >= 2 else None, family.verdicts[k]))
    return found


def _verdict_table(comparisons: list[Comparison], challengers: list[str], won: dict[str, Verdict]):
    import pandas as pd

    rows = []
    for c in comparisons:
        if c.spec.role != "primary":
            continue
        rows.append({"metric": c.spec.name, "n": c.n, "diff": c.mean_difference, "ci_low": c.decision.low,
                     "ci_high": c.decision.high, "ci_level": c.ci_level, "p": c.p, "p_adjusted": c.p_adjusted,
                     "verdict": c.decision.verdict, "questions_needed": c.decision.questions_needed,
                     "reason": c.decision.reason, "winner": won[c.challenger].winner,
                     "winner_reason": won[c.challenger].reason})
    return pd.DataFrame(rows, index=pd.Index(challengers, name="challenger"), columns=list(VERDICT_COLUMNS))


def _frame(values, where: str):
    """``values`` as a float DataFrame (questions x configurations) with at least two configurations."""
    import pandas as pd

    if isinstance(values, pd.DataFrame):
        frame = values.copy()
    elif isinstance(values, Mapping):
        lengths = {str(name): len(seq) for name, seq in values.items()}
        if len(set(lengths.values())) > 1:
            raise ValueError(f"{where}: every configuration needs one value per question, aligned by position; "
                             f"got lengths {lengths}")
        try:  # numpy reads None as NaN in a float array; one 2-D block, not a block per configuration
            columns = [np.asarray(seq, dtype=float) for seq in values.values()]
        except (TypeError, ValueError) as err:
            raise ValueError(f"{where}: values must be numbers (NaN or None for no value): {err}") from err
        frame = pd.DataFrame(np.column_stack(columns) if columns else None, columns=list(lengths))
    else:
        raise ValueError(f"{where} must be a mapping name -> per-question values or a pandas DataFrame, "
                         f"got {type(values).__name__}")
    frame.columns = [str(c) for c in frame.columns]
    if frame.columns.duplicated().any():
        raise ValueError(f"{where}: configuration names must be distinct, got {list(frame.columns)}")
    if frame.shape[1] < 2:
        raise ValueError(f"{where}: need at least two configurations to compare, got {list(frame.columns)}")
    try:
        if not all(dtype == np.float64 for dtype in frame.dtypes):
            frame = frame.astype(float)
    except (TypeError, ValueError) as err:
        raise ValueError(f"{where}: values must be numbers (NaN or None for no value): {err}") from err
    if np.isinf(frame.to_numpy()).any():
        raise ValueError(f"{where}: values must be finite, or NaN/None for no value")
    return frame


def _champion(frame, champion: str | None, direction: str) -> str:
    if champion is not None:
        if str(champion) not in frame.columns:
            raise ValueError(f"champion {champion!r} is not among the configurations {list(frame.columns)}")
        return str(champion)
    means = frame.mean(skipna=True) * (1.0 if direction == "higher" else -1.0)
    return str(means.fillna(-math.inf).idxmax())


def _cost_tables(metrics: dict[str, tuple[MetricSpec, Any]], costs: Mapping[str, Any],
                 names: list[str]) -> tuple[dict[str, list[dict[str, Any]]], list[Axis]]:
    """Per-question rows per configuration (the metrics and every cost) and a mean axis per cost."""
    length = len(next(iter(metrics.values()))[1])
    columns = {spec.name: frame for spec, frame in metrics.values()}
    for axis, per_name in costs.items():
        frame = _frame(per_name, f"costs[{axis!r}]")
        if sorted(frame.columns) != sorted(names) or len(frame) != length:
            raise ValueError(f"costs[{axis!r}] must give every configuration {names} one cost per question "
                             f"({length}); got {list(frame.columns)} and {len(frame)}")
        columns[f"cost/{axis}"] = frame
    tables = {name: [{"question_id": i, **{key: _value(frame[name].iloc[i]) for key, frame in columns.items()}}
                     for i in range(length)] for name in names}
    axes = [Axis(str(axis), metrics=(f"cost/{axis}",), better=f"lower on {axis}") for axis in costs]
    return tables, axes


def _value(value) -> float | None:
    return None if value is None or (isinstance(value, float) and math.isnan(value)) else float(value)


def _plain(value):
    if isinstance(value, (np.integer,)):
        return int(value)
    if isinstance(value, (np.floating, float)):
        return None if math.isnan(value) else float(value)
    return value


def _checked(direction, margin, test, correction, alpha, power, resamples, pairs_share) -> dict[str, Any]:
    if direction not in DIRECTIONS:
        raise ValueError(f"direction must be one of {list(DIRECTIONS)}, got {direction!r}")
    if isinstance(margin, bool) or not isinstance(margin, (int, float)) or not math.isfinite(margin) or margin < 0:
        raise ValueError(f"margin must be a finite number >= 0, got {margin!r}")
    if test not in choice_values(StatTest):
        raise ValueError(f"test must be one of {list(choice_values(StatTest))}, got {test!r}")
    if correction not in METHODS:
        raise ValueError(f"correction must be one of {sorted(METHODS)}, got {correction!r}")
    check_probability(alpha, "alpha")
    check_probability(power, "power")
    check_count(resamples, "resamples", 1)
    if isinstance(pairs_share, bool) or not isinstance(pairs_share, (int, float)) or not 0 < pairs_share < 1:
        raise ValueError(f"pairs_share must be a number strictly between 0 and 1, got {pairs_share!r}")
    return {"direction": direction, "margin": float(margin), "test": test, "correction": correction,
            "alpha": float(alpha), "power": float(power), "resamples": int(resamples), "pairs_share": float(pairs_share)}
