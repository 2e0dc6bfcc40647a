"""Argument checks shared by the statistics modules; each error names the argument."""

from __future__ import annotations

import math
from numbers import Integral, Real


def check_probability(value: float, name: str) -> float:
    """``value`` as a float strictly between 0 and 1, else ValueError naming ``name``."""
    if isinstance(value, bool) or not isinstance(value, Real) or not 0.0 < value < 1.0:
        raise ValueError(f"{name} must be a number strictly between 0 and 1, got {value!r}")
    return float(value)


def check_count(value: int, name: str, minimum: int) -> int:
    """``value`` as an int >= ``minimum``, else ValueError naming ``name``."""
    if isinstance(value, bool) or not isinstance(value, Integral) or value < minimum:
        raise ValueError(f"{name} must be an int >= {minimum}, got {value!r}")
    return int(value)


def check_effect_size(value: float, name: str) -> float:
    """``value`` as a finite, non-zero float, else ValueError naming ``name``."""
    if isinstance(value, bool) or not isinstance(value, Real) or not math.isfinite(value) or value == 0:
        raise ValueError(f"{name} must be a finite, non-zero effect size, got {value!r}")
    return float(value)
