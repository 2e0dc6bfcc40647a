"""The ``stats.front`` block: how the ship-candidate front (:mod:`harness.stats.front`) is decided."""

from __future__ import annotations

import math
from typing import Any

from harness.stats.front import Front, choose_axes
from harness.stats.front_axes import Axis, Resampling


class FrontSettings:
    """Args:
        enabled: compute the front at the end of a sweep.
        resamples, alpha, seed: the bootstrap over questions of every cost and latency interval
            (a ``1 - alpha`` percentile interval).
        min_questions: two runs sharing fewer questions with a value are not compared on that axis.
        min_ratio: a run-level figure (measured once, no per-question values) is lower beyond noise
            only when the other is at least this many times larger.
        answering: the axes of a sweep that answers questions (:class:`~harness.stats.front_axes.Axis`).
        retrieval: the axes of a retrieval-only sweep.
        pairs_share: the fraction of ``stats.alpha`` spent on the quality of the front's pairs of
            runs; the comparisons with the champion spend the rest (:mod:`harness.stats.front_quality`).
    """

    def __init__(self, enabled: bool, resamples: int, alpha: float, seed: int, min_questions: int, min_ratio: float,
                 answering: list[dict[str, Any]], retrieval: list[dict[str, Any]], pairs_share: float = 0.5) -> None:
        self.enabled = bool(enabled)
        if isinstance(pairs_share, bool) or not isinstance(pairs_share, (int, float)) or not 0 < pairs_share < 1:
            raise ValueError(f"stats.front.pairs_share must be a number strictly between 0 and 1, got {pairs_share!r}")
        self.pairs_share = float(pairs_share)
        self.resampling = Resampling(resamples, alpha, int(seed), min_questions)
        if isinstance(min_ratio, bool) or not isinstance(min_ratio, (int, float)) or not math.isfinite(min_ratio) \
                or min_ratio < 1:
            raise ValueError(f"stats.front.min_ratio must be a number >= 1, got {min_ratio!r}")
        self.min_ratio = float(min_ratio)
        self.answering = [_axis(a, f"stats.front.answering[{i}]") for i, a in enumerate(answering)]
        self.retrieval = [_axis(a, f"stats.front.retrieval[{i}]") for i, a in enumerate(retrieval)]

    def compute(self, tables: dict[str, list[dict[str, Any]]], infos: dict[str, dict[str, Any]], decision) -> Front:
        """The front of the runs in ``tables`` on the axes that fit them (:func:`choose_axes`), drawn by
        ``decision`` (:meth:`harness.stats.decide.Decision.front_for`)."""
        axes = choose_axes(tables, infos, self.answering, self.retrieval)
        return decision.front_for(tables, infos, axes, self.resampling, self.min_ratio)


def _axis(spec: dict[str, Any], where: str) -> Axis:
    spec = {key: value for key, value in dict(spec).items() if value is not None}  # null: the Axis default
    spec["metrics"] = tuple(spec.get("metrics") or ())
    try:
        return Axis(**spec)
    except (TypeError, ValueError) as err:
        raise ValueError(f"{where}: {err}") from err
