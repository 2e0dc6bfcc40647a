"""What the comparison needs to know about each metric: which way is better and its role."""

from __future__ import annotations

import math
from numbers import Real
from dataclasses import dataclass

from harness.config.schemas.choices import Direction, values

DIRECTIONS = values(Direction)
# primary: decides the winner; guard: a significant regression beyond its margin makes the
# champion win (seed 003, 7.5); secondary: reported and corrected, but no say in the verdict.
ROLES = ("primary", "guard", "secondary")


@dataclass(frozen=True)
class MetricSpec:
    """One compared metric.

    Attributes:
        name: metric key, as in the per-question results (``answer/f1``).
        direction: ``"higher"`` or ``"lower"`` is better.
        role: ``"primary"``, ``"guard"`` or ``"secondary"``.
        margin: for a guard, how much worse (in the metric's units) the challenger may be
            before a significant drop counts as a regression.

    Example:
        >>> MetricSpec("latency_ms", direction="lower", role="guard", margin=5.0).worse_by(8.0)
        8.0
    """

    name: str
    direction: str = "higher"
    role: str = "secondary"
    margin: float = 0.0

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name:
            raise ValueError(f"name must be a non-empty string, got {self.name!r}")
        if self.direction not in DIRECTIONS:
            raise ValueError(f"direction of {self.name!r} must be one of {DIRECTIONS}, got {self.direction!r}")
        if self.role not in ROLES:
            raise ValueError(f"role of {self.name!r} must be one of {ROLES}, got {self.role!r}")
        if not isinstance(self.margin, Real) or not math.isfinite(self.margin) or self.margin < 0:
            raise ValueError(f"margin of {self.name!r} must be a finite number >= 0, got {self.margin!r}")

    def worse_by(self, mean_difference: float) -> float:
        """How much worse the challenger is (negative: better), from ``challenger - champion``."""
        return -mean_difference if self.direction == "higher" else mean_difference
