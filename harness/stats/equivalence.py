"""Equivalence and non-inferiority at a margin: one-sided tests of shifted differences and the
confidence interval they invert to (Schuirmann's two one-sided tests; Wellek, *Testing Statistical
Hypotheses of Equivalence and Noninferiority*).

A comparison's interval at level ``1 - level`` is the set of true differences ``delta`` that neither
one-sided test of ``d - delta`` rejects at ``level / 2``. It is read three ways, always on the same
interval, so a printed interval never contradicts its verdict:

- it leaves out 0: the two-sided test rejects at ``level`` (``better`` / ``worse``);
- it lies inside ``(-margin, +margin)``: both one-sided tests against the margins reject at
  ``level / 2`` (TOST; its p-value is ``statsmodels.stats.weightstats.ttost_paired``'s for the t test);
- its lower end (in the better direction) is above ``-margin``: non-inferiority at ``level / 2``.

Using the two-sided ``1 - level`` interval for the one-sided claims is the regulators' convention
(a 95% interval for a 5% test, i.e. 2.5% a side): one interval serves every verdict.

For the t test the interval is the t interval. The Wilcoxon signed-rank and the sign-flip
permutation test have no closed form, so their ends are found by bisection on the shift (each
test's one-sided p-value grows monotonically with the shift).

Example:
    >>> import numpy as np
    >>> low, high = interval(np.array([0.1, 0.2, 0.0, 0.1, 0.15]), "t", level=0.05)
    >>> round(low, 4), round(high, 4)
    (0.0179, 0.2021)
"""

from __future__ import annotations

import math

import numpy as np
from scipy import stats

_ROUNDING = 1e-12  # relative spread of differences that is float rounding, as in harness.stats.paired
_BISECTIONS = 48  # halvings of the search bracket: far below any metric's resolution


def one_sided_p(differences: np.ndarray, shift: float, test: str, greater: bool, resamples: int = 1000,
                seed: int = 0) -> float | None:
    """p-value of the one-sided test that the differences' centre exceeds ``shift`` (``greater``)
    or lies below it; None when not testable (fewer than 2 values, or every shifted value zero).

    Example:
        >>> round(one_sided_p(np.array([0.3, 0.1, 0.2]), shift=0.0, test="t", greater=True), 4)
        0.0371
    """
    d = np.asarray(differences, dtype=float) - shift
    if d.size < 2 or not np.any(d):
        return None
    alternative = "greater" if greater else "less"
    if test == "t":
        if float(np.ptp(d)) == 0.0:  # constant differences: no spread, the centre is known exactly
            return 0.0 if (d[0] > 0) == greater else 1.0
        return float(stats.ttest_1samp(d, 0.0, alternative=alternative).pvalue)
    if test == "wilcoxon":
        return float(stats.wilcoxon(d, zero_method="wilcox", alternative=alternative).pvalue)
    if test == "permutation":
        return float(stats.permutation_test((d,), np.mean, permutation_type="samples", vectorized=True,
                                            n_resamples=resamples, alternative=alternative,
                                            rng=np.random.default_rng(seed)).pvalue)
    raise ValueError(f"test must be 't', 'wilcoxon' or 'permutation', got {test!r}")


def tost_p(differences: np.ndarray, margin: float, test: str, resamples: int = 1000, seed: int = 0) -> float | None:
    """The TOST p-value of equivalence within ``(-margin, +margin)``: the larger of the two
    one-sided p-values (above ``-margin``, below ``+margin``); None when not testable."""
    lower = one_sided_p(differences, -margin, test, True, resamples, seed)
    upper = one_sided_p(differences, margin, test, False, resamples, seed)
    return None if lower is None or upper is None else max(lower, upper)


def interval(differences: np.ndarray, test: str, level: float, resamples: int = 1000,
             seed: int = 0) -> tuple[float, float] | None:
    """The ``1 - level`` interval of the differences' centre that inverts ``test``; None with fewer
    than 2 values. An end no shift can reach (too few questions for ``level``) is infinite."""
    d = np.asarray(differences, dtype=float)
    if d.size < 2:
        return None
    if test == "t":
        spread = 0.0 if _constant(d) else float(np.std(d, ddof=1))
        half = float(stats.t.isf(level / 2, d.size - 1)) * spread / math.sqrt(d.size)
        return float(np.mean(d)) - half, float(np.mean(d)) + half
    if _constant(d):
        return float(np.mean(d)), float(np.mean(d))
    return (_end(d, test, level, resamples, seed, greater=True),
            _end(d, test, level, resamples, seed, greater=False))


def verdict_interval(differences: np.ndarray | None, test: str, level: float | None, resamples: int = 1000,
                     seed: int = 0) -> tuple[float, float] | None:
    """The interval a verdict reads: :func:`interval` at ``level``; where every question differs by the
    same amount (identical runs: all zero), that amount at both ends whatever the level, since there is
    no spread to be unsure of (the tests call such samples untestable and leave them out of the
    family, so they have no level); None with fewer than 2 values or no level."""
    if differences is None or len(differences) < 2:
        return None
    d = np.asarray(differences, dtype=float)
    if _constant(d):
        return float(np.mean(d)), float(np.mean(d))
    return None if level is None else interval(d, test, level, resamples, seed)


def _constant(d: np.ndarray) -> bool:
    """Every difference the same, up to the float rounding of equal scores (0.3 - 0.2 != 0.4 - 0.3)."""
    return float(np.ptp(d)) <= _ROUNDING * float(np.max(np.abs(d)))


def _end(d: np.ndarray, test: str, level: float, resamples: int, seed: int, greater: bool) -> float:
    """The lower end (``greater``: the largest shift the 'greater' test still rejects) or the upper."""
    def rejects(shift: float) -> bool:
        p = one_sided_p(d, shift, test, greater, resamples, seed)
        return p is not None and p < level / 2

    span = float(np.ptp(d)) or 1.0
    outside, inside = (float(d.min()) - span, float(np.median(d))) if greater else \
        (float(d.max()) + span, float(np.median(d)))
    if not rejects(outside):  # even a shift beyond every value is not rejected: too few questions
        return -math.inf if greater else math.inf
    if rejects(inside):  # the median shift is rejected: walk further in until it is not
        inside = float(d.max()) + span if greater else float(d.min()) - span
    for _ in range(_BISECTIONS):
        middle = (outside + inside) / 2
        if rejects(middle):
            outside = middle
        else:
            inside = middle
    return (outside + inside) / 2
