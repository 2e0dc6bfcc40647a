"""Per-comparison levels that make a family's intervals agree with its corrected tests.

A comparison's interval is printed beside its corrected p-value, so it is built at the level the
correction actually tested that comparison at: then the interval leaves out 0 exactly when the
corrected p-value is below ``alpha`` (for the t test; the rank and permutation tests to the
precision of their p-values), and no reader sees an interval that contradicts a verdict.

- ``none``: every comparison at ``alpha``.
- ``bonferroni``: ``alpha / K`` (K tested comparisons); the intervals are simultaneous at ``1 - alpha``.
- ``holm``: the step-down's own thresholds. The j-th smallest p-value is tested at
  ``alpha / (K - j + 1)``; a rejected comparison gets the threshold it was rejected at, and every
  comparison from the first one kept onwards gets that step's threshold, where Holm stopped. These
  levels are never below Bonferroni's, and agree with Holm's decisions (Strassburger and Bretz, 2008,
  discuss Holm-consistent intervals).
- ``bh``: Benjamini and Yekutieli's (2005) false-coverage-rate intervals, ``alpha * R / K`` with R the
  number of Benjamini-Hochberg rejections (``alpha / K`` when there are none).

Example:
    >>> adjusted_levels([0.001, 0.03, 0.04, None], "holm", 0.05)
    [0.016666666666666666, 0.025, 0.025, None]
"""

from __future__ import annotations

from harness.stats.correction import METHODS, check_family


def adjusted_levels(p_values: list[float | None], method: str, alpha: float) -> list[float | None]:
    """The level of each comparison's interval; None where the comparison is untestable (None p).

    Raises:
        ValueError: unknown ``method`` or an invalid p-value (as :func:`~harness.stats.correction.correct`).

    The decisions are written out here rather than read from ``correct``'s adjusted p-values (which
    give no step); the tests check that they agree with statsmodels' ``multipletests``.
    """
    check_family(p_values, method)
    tested = [i for i, p in enumerate(p_values) if p is not None]
    levels: list[float | None] = [None] * len(p_values)
    size = len(tested)
    if METHODS.get(method, "?") is None:
        for i in tested:
            levels[i] = alpha
    elif method == "bonferroni":
        for i in tested:
            levels[i] = alpha / size
    elif method == "holm":  # the step-down written out: statsmodels gives adjusted p-values, not the step
        order = sorted(tested, key=lambda i: p_values[i])
        stopped = None
        for step, i in enumerate(order):
            threshold = alpha / (size - step)
            if stopped is None and not p_values[i] < threshold:
                stopped = threshold
            levels[i] = threshold if stopped is None else stopped
    else:  # bh: R, the largest k whose k-th smallest p-value is below k * alpha / K
        ordered = sorted(p_values[i] for i in tested)
        rejected = max((k for k in range(1, size + 1) if ordered[k - 1] < k * alpha / size), default=0)
        for i in tested:
            levels[i] = alpha * max(rejected, 1) / size
    return levels
