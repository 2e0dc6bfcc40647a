"""The ``meta_eval`` config group (``conf/meta_eval/default.yaml``) as a validated object."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

HEADLINES = ("pearson", "spearman")


@dataclass(frozen=True)
class Scale:
    """The closed range ``[low, high]`` labels must lie in."""

    low: float
    high: float

    def __post_init__(self) -> None:
        if not self.high > self.low:
            raise ValueError(f"a label scale needs low < high, got [{self.low}, {self.high}]")

    @classmethod
    def of(cls, bounds: Sequence[float], where: str) -> Scale:
        if len(bounds) != 2:
            raise ValueError(f"{where} must be [low, high], got {list(bounds)}")
        return cls(float(bounds[0]), float(bounds[1]))

    def __contains__(self, value: float) -> bool:
        return self.low <= value <= self.high

    def __str__(self) -> str:
        return f"[{self.low:g}, {self.high:g}]"


class MetaEvalSettings:
    """Settings of ``harness meta-eval``.

    Args:
        bootstrap: ``{resamples, confidence, seed}`` of the percentile bootstrap CIs.
        absolute_scale: ``[low, high]`` of absolute ratings, or None for any number.
        pairwise_scale: ``[low, high]`` of pairwise labels (how much better B is than A).
        headline: the statistic that sorts, is charted and is set against the ceiling.
        min_pairs: fewest questions (absolute) or label rows (pairwise) per correlation.
        experiment_name: MLflow experiment for a report on a local run folder.
        align: the settings of ``harness align`` (:class:`harness.align.settings.AlignSettings`
            reads and checks them), kept here as given.
    """

    def __init__(self, bootstrap: Mapping[str, Any], absolute_scale: Sequence[float] | None,
                 pairwise_scale: Sequence[float], headline: str, min_pairs: int, experiment_name: str,
                 align: Mapping[str, Any] | None = None) -> None:
        self.align = dict(align or {})
        self.resamples = int(bootstrap["resamples"])
        self.confidence = float(bootstrap["confidence"])
        self.seed = int(bootstrap["seed"])
        if self.resamples < 1:
            raise ValueError(f"meta_eval.bootstrap.resamples must be >= 1, got {self.resamples}")
        if not 0 < self.confidence < 1:
            raise ValueError(f"meta_eval.bootstrap.confidence must lie in (0, 1), got {self.confidence}")
        self.absolute_scale = None if absolute_scale is None else Scale.of(absolute_scale, "meta_eval.absolute_scale")
        self.pairwise_scale = Scale.of(pairwise_scale, "meta_eval.pairwise_scale")
        if headline not in HEADLINES:
            raise ValueError(f"meta_eval.headline must be one of {list(HEADLINES)}, got {headline!r}")
        self.headline = headline
        if int(min_pairs) < 3:  # a correlation of two points is always +-1
            raise ValueError(f"meta_eval.min_pairs must be >= 3, got {min_pairs}")
        self.min_pairs = int(min_pairs)
        self.experiment_name = experiment_name
