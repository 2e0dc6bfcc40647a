"""Multiple-comparison correction of p-values, skipping untestable comparisons.

Example:
    >>> correct([0.01, None, 0.04, 0.03], "holm")
    [0.03, None, 0.06, 0.06]
"""

from __future__ import annotations

import math
from numbers import Real

import numpy as np

# Our method names -> statsmodels' names (None: leave the p-values as they are).
METHODS = {"holm": "holm", "bonferroni": "bonferroni", "bh": "fdr_bh", "none": None}


def check_family(p_values: list[float | None], method: str) -> None:
    """ValueError unless ``method`` is known and each p-value is a probability or None."""
    if method not in METHODS:
        raise ValueError(f"method must be one of {sorted(METHODS)}, got {method!r}")
    for i, p in enumerate(p_values):
        is_probability = isinstance(p, Real) and not isinstance(p, bool) and math.isfinite(p) and 0.0 <= p <= 1.0
        if p is not None and not is_probability:
            raise ValueError(f"p_values[{i}] must be a probability in [0, 1] or None, got {p!r}")


def correct(p_values: list[float | None], method: str) -> list[float | None]:
    """Adjust a family of p-values for multiple comparisons.

    Args:
        p_values: one per comparison; None marks an untestable comparison, which is left out
            of the family (it does not count towards the number of tests) and stays None.
        method: ``"holm"`` (Holm-Bonferroni), ``"bonferroni"``, ``"bh"`` (Benjamini-Hochberg
            false discovery rate) or ``"none"``; equal to ``statsmodels.stats.multitest.multipletests``
            (tested), which costs a garbage collection (~60 ms) a call: too slow for a family decided
            thousands of times in a simulation.

    Returns:
        Adjusted p-values in the input order.

    Raises:
        ValueError: unknown ``method``, or a p-value outside [0, 1] / NaN.
    """
    check_family(p_values, method)
    tested = [i for i, p in enumerate(p_values) if p is not None]
    adjusted: list[float | None] = [None] * len(p_values)
    if not tested:
        return adjusted
    raw = [float(p_values[i]) for i in tested]
    values = raw if METHODS[method] is None else _adjusted(np.asarray(raw), method).tolist()
    for i, value in zip(tested, values):
        adjusted[i] = float(value)
    return adjusted


def _adjusted(p: np.ndarray, method: str) -> np.ndarray:
    """Adjusted p-values, as statsmodels' ``multipletests`` computes them."""
    size = len(p)
    if method == "bonferroni":
        return np.minimum(p * size, 1.0)
    order = np.argsort(p, kind="mergesort")
    ranked = p[order]
    if method == "holm":  # step-down: running maximum of (K - j) p_(j)
        steps = np.minimum(np.maximum.accumulate(ranked * (size - np.arange(size))), 1.0)
    else:  # bh, step-up: running minimum from the largest of K p_(j) / j
        steps = np.minimum(np.minimum.accumulate((ranked * size / np.arange(1, size + 1))[::-1])[::-1], 1.0)
    adjusted = np.empty(size)
    adjusted[order] = steps
    return adjusted
