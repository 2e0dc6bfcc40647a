"""The ``human`` config group as objects: rubric dimensions, sampling defaults, agreement bands.

Every number (scales, Landis-Koch bands, the kappa target, the confidence level) arrives from
``conf/human/*.yaml``; this module only validates it and answers questions about it.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from harness.config.schemas.choices import Direction, SampleStrategy, values

STRATEGIES = values(SampleStrategy)
DIRECTIONS = values(Direction)


@dataclass(frozen=True)
class JudgeColumn:
    """The per-question column an LLM judge wrote for a dimension, and that column's range.

    A judge on another scale than the dimension's is mapped linearly onto it (``min`` -> the
    lowest level, ``max`` -> the highest), e.g. a 0-10 judge score onto a 1-10 grade:
    ``1 + (x - 0) * (10 - 1) / (10 - 0)``. Linear because both are interval readings of the
    same rubric direction; nothing better is known without paired data.
    """

    column: str
    min: float
    max: float

    def __post_init__(self) -> None:
        if not self.max > self.min:
            raise ValueError(f"judge column '{self.column}': max ({self.max}) must exceed min ({self.min})")


@dataclass(frozen=True)
class Dimension:
    """One rubric dimension annotators rate, e.g. relevance on 1-5.

    Attributes:
        name: the sheet's column for it.
        prompt: the question annotators answer.
        levels: the allowed ratings in scale order (numbers, or labels such as FAIL/PARTIAL/PASS).
        rubric: one description per level, in the same order.
        judge: the judge column it calibrates, or None.
    """

    name: str
    prompt: str
    levels: tuple[Any, ...]
    rubric: tuple[str, ...]
    judge: JudgeColumn | None = None

    def __post_init__(self) -> None:
        where = f"human.dimensions.{self.name}"
        if len(self.levels) < 2:
            raise ValueError(f"{where}.levels: need at least two levels, got {list(self.levels)}")
        if len({self._key(level) for level in self.levels}) != len(self.levels):
            raise ValueError(f"{where}.levels: duplicate level in {list(self.levels)}")
        if len(self.rubric) != len(self.levels):
            raise ValueError(f"{where}.rubric: {len(self.rubric)} descriptions for {len(self.levels)} levels")
        numeric = [self._is_number(level) for level in self.levels]
        if any(numeric) and not all(numeric):
            raise ValueError(f"{where}.levels: mix of numbers and labels in {list(self.levels)}")
        if all(numeric) and list(self.levels) != sorted(self.levels):
            raise ValueError(f"{where}.levels: numeric levels must be in increasing order, got {list(self.levels)}")

    @staticmethod
    def _is_number(level: Any) -> bool:
        return isinstance(level, (int, float)) and not isinstance(level, bool)

    @staticmethod
    def _key(level: Any) -> str:
        return str(level).strip().lower()

    @property
    def numeric_levels(self) -> bool:
        return self._is_number(self.levels[0])

    def parse(self, cell: str) -> Any:
        """The level a sheet cell names; raises ValueError saying what the scale is.

        ``"4"``, ``" 4 "`` and ``"4.0"`` (as a spreadsheet may save it) all read as 4; labels
        are matched without regard to case.
        """
        text = cell.strip()
        for level in self.levels:
            if self._key(level) == text.lower():
                return level
        if self.numeric_levels:
            try:
                number = float(text)
            except ValueError:
                number = math.nan
            for level in self.levels:
                if number == level:
                    return level
        raise ValueError(f"{cell!r} is not on the scale {', '.join(map(str, self.levels))}")

    def value(self, level: Any) -> float:
        """The number a level stands for: itself on a numeric scale, else its 1-based position."""
        return float(level) if self.numeric_levels else float(self.levels.index(level) + 1)

    @property
    def low(self) -> float:
        return self.value(self.levels[0])

    @property
    def high(self) -> float:
        return self.value(self.levels[-1])

    def rescale_judge(self, x: float) -> float:
        """A judge reading on the dimension's scale (see :class:`JudgeColumn`)."""
        judge = self.judge
        if judge is None:
            raise ValueError(f"dimension '{self.name}' has no judge column")
        if not judge.min <= x <= judge.max:
            raise ValueError(f"{judge.column} = {x} lies outside its configured range [{judge.min}, {judge.max}]")
        return self.low + (x - judge.min) * (self.high - self.low) / (judge.max - judge.min)

    def scale_text(self) -> str:
        return f"{self.levels[0]}-{self.levels[-1]}" if self.numeric_levels else "/".join(map(str, self.levels))


@dataclass(frozen=True)
class KappaBand:
    """Kappa at or above ``min`` (None: any value) reads as ``label``."""

    min: float | None
    label: str


@dataclass(frozen=True)
class SamplingSettings:
    """Defaults of ``harness annotate export`` (each can be overridden on its command line)."""

    strategy: str
    n: int
    seed: int
    worst_column: str
    worst_direction: str
    category_prefix: str
    shuffle: bool

    def __post_init__(self) -> None:
        if self.strategy not in STRATEGIES:
            raise ValueError(f"human.sample.strategy must be one of {list(STRATEGIES)}, got {self.strategy!r}")
        if self.worst_direction not in DIRECTIONS:
            raise ValueError(f"human.sample.worst_direction must be one of {list(DIRECTIONS)}, "
                             f"got {self.worst_direction!r}")
        if self.n < 1:
            raise ValueError(f"human.sample.n must be >= 1, got {self.n}")


class HumanEvalSettings:
    """The ``human`` config group (``conf/human/default.yaml``).

    Args:
        dimensions: name -> ``{prompt, levels, rubric, judge: {column, min, max} | null}``.
        sample: export defaults (``strategy``, ``n``, ``seed``, ``worst_column``,
            ``worst_direction``, ``category_prefix``, ``shuffle``).
        landis_koch: ``[{min, label}]`` bands in increasing order; the first ``min`` is null.
        kappa_decimals: decimals the report prints a kappa with; the label is read from the
            unrounded value (see :meth:`kappa_label`).
        target_kappa: the agreement a dimension needs before its ratings are trusted.
        confidence: level of the bias-corrected mean's confidence interval.
        min_pairs: fewest questions a kappa or a correlation is computed on.
        experiment_name: MLflow experiment for a local run folder's report.
    """

    def __init__(self, dimensions: Mapping[str, Mapping[str, Any]], sample: Mapping[str, Any],
                 landis_koch: Sequence[Mapping[str, Any]], kappa_decimals: int, target_kappa: float,
                 confidence: float, min_pairs: int, experiment_name: str) -> None:
        if not dimensions:
            raise ValueError("human.dimensions is empty: configure at least one dimension to rate")
        self.dimensions = {name: _dimension(name, spec) for name, spec in dimensions.items()}
        self.sample = SamplingSettings(**{**dict(sample), "n": int(sample["n"]), "seed": int(sample["seed"])})
        self.landis_koch = [KappaBand(None if b["min"] is None else float(b["min"]), str(b["label"]))
                            for b in landis_koch]
        mins = [b.min for b in self.landis_koch]
        if not mins or mins[0] is not None or None in mins[1:] or mins[1:] != sorted(mins[1:]):
            raise ValueError("human.landis_koch: the first band's min must be null and the others increasing, "
                             f"got {mins}")
        self.kappa_decimals = int(kappa_decimals)
        if self.kappa_decimals < 0:
            raise ValueError(f"human.kappa_decimals must be >= 0, got {kappa_decimals}")
        self.target_kappa = float(target_kappa)
        if not 0 < confidence < 1:
            raise ValueError(f"human.confidence must lie in (0, 1), got {confidence}")
        self.confidence = float(confidence)
        if int(min_pairs) < 2:
            raise ValueError(f"human.min_pairs must be >= 2, got {min_pairs}")
        self.min_pairs = int(min_pairs)
        self.experiment_name = experiment_name

    def kappa_label(self, kappa: float) -> str:
        """The Landis-Koch reading of a kappa (bands from the config); ``undefined`` for NaN.

        A band runs from its ``min`` up to the next band's ``min``: with the seed's bands, any
        kappa below 0 is poor, 0.0 up to (not including) 0.21 is slight, and so on.
        """
        if math.isnan(kappa):
            return "undefined"
        # The unrounded value: rounding first would turn -0.001 into -0.0, which reaches the 0.0
        # bound and reads "slight" where Landis & Koch say poor (kappa < 0, worse than chance).
        label = self.landis_koch[0].label
        for band in self.landis_koch[1:]:
            if kappa >= band.min:
                label = band.label
        return label


def _dimension(name: str, spec: Mapping[str, Any]) -> Dimension:
    judge = spec.get("judge")
    return Dimension(name=name, prompt=str(spec["prompt"]), levels=tuple(spec["levels"]),
                     rubric=tuple(str(r) for r in spec["rubric"]),
                     judge=None if judge is None else JudgeColumn(str(judge["column"]), float(judge["min"]),
                                                                  float(judge["max"])))
