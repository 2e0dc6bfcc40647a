"""Power analysis for the paired comparison (seed 003, section 7.4).

A paired t-test is a one-sample t-test on the differences, so the t-based functions use
``statsmodels.stats.power.TTestPower``. The z-based ones are the seed's normal approximation
``N = ((z_{alpha/2} + z_beta) / d)^2`` with exact normal quantiles (not the rounded 1.96 and
0.84: with those, d = 0.2 gives 196.0 -> 196, not the seed's 197).

Example:
    >>> [required_sample_size_z(d, alpha=0.05, power=0.80) for d in (0.2, 0.5, 0.8)]
    [197, 32, 13]
    >>> round(minimum_detectable_effect(100, alpha=0.05, power=0.80), 2)
    0.28
"""

from __future__ import annotations

import math
import warnings

from scipy.optimize import brentq
from scipy.stats import nct, norm, t
from statsmodels.stats.power import TTestPower
from statsmodels.tools.sm_exceptions import ConvergenceWarning

from harness.stats._checks import check_count, check_effect_size, check_probability

_SMALLEST_T_SAMPLE = 2  # a t-test needs n - 1 >= 1 degrees of freedom
_SOLVED = 1e-6  # |power(solution) - target| within which statsmodels' solution is accepted


def _t_power(d: float, n: float, alpha: float) -> float:
    """Two-sided paired t-test power; statsmodels' value, else the same formula written stably.

    statsmodels adds the lower tail as ``nct.cdf(-c, df, nc)``, which scipy returns as NaN when
    ``nc`` is large (e.g. d = 2, n = 100); the same probability as ``nct.sf(c, df, -nc)`` stays
    finite, and the two agree to 1e-15 wherever statsmodels is finite.
    """
    power = float(TTestPower().power(effect_size=d, nobs=n, alpha=alpha, alternative="two-sided"))
    if math.isfinite(power):
        return power
    df, nc = n - 1, d * math.sqrt(n)
    critical = t.isf(alpha / 2, df)
    return float(nct.sf(critical, df, nc) + nct.sf(critical, df, -nc))


def _z_sum(alpha: float, power: float) -> float:
    alpha = check_probability(alpha, "alpha")
    power = check_probability(power, "power")
    return float(norm.ppf(1 - alpha / 2) + norm.ppf(power))


def required_sample_size_z(d: float, alpha: float, power: float) -> int:
    """Paired questions needed to detect effect ``d``, two-sided, by the normal approximation.

    ``ceil(((z_{1-alpha/2} + z_{power}) / |d|)^2)``.

    Raises:
        ValueError: ``d`` is zero or not finite, or ``alpha``/``power`` not in (0, 1).
    """
    d = check_effect_size(d, "d")
    return math.ceil((_z_sum(alpha, power) / abs(d)) ** 2)


def achieved_power(d: float, n: int, alpha: float) -> float:
    """Power of the two-sided paired t-test with ``n`` pairs against true effect ``d``.

    Example:
        >>> round(achieved_power(0.5, 34, alpha=0.05), 3)
        0.808
    """
    check_count(n, "n", _SMALLEST_T_SAMPLE)
    return _t_power(d, n, check_probability(alpha, "alpha"))


def required_sample_size_t(d: float, alpha: float, power: float) -> float:
    """Paired questions needed to detect effect ``d`` with the two-sided paired t-test.

    Fractional, as ``TTestPower().solve_power`` returns it (round up for a count). Effects so
    large that 2 pairs already reach ``power`` return 2.0 (the smallest sample a t-test takes).
    Where statsmodels' solver fails on large effects (NaN, or a value whose power misses the
    target), the same equation is solved with ``scipy.optimize.brentq``.

    Example:
        >>> round(required_sample_size_t(0.5, alpha=0.05, power=0.80), 2)
        33.37
    """
    d = abs(check_effect_size(d, "d"))
    alpha = check_probability(alpha, "alpha")
    power = check_probability(power, "power")
    if _t_power(d, _SMALLEST_T_SAMPLE, alpha) >= power:
        return float(_SMALLEST_T_SAMPLE)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        n = float(TTestPower().solve_power(effect_size=d, alpha=alpha, power=power, alternative="two-sided"))
    if math.isfinite(n) and abs(_t_power(d, n, alpha) - power) <= _SOLVED:
        return n
    high = 2.0 * _SMALLEST_T_SAMPLE
    while _t_power(d, high, alpha) < power:
        high *= 2
    return float(brentq(lambda m: _t_power(d, m, alpha) - power, _SMALLEST_T_SAMPLE, high, xtol=1e-12))


def minimum_detectable_effect(n: int, alpha: float, power: float) -> float:
    """Smallest |d| that ``n`` pairs detect, by the normal approximation: ``(z_{a/2} + z_b) / sqrt(n)``."""
    check_count(n, "n", 1)
    return _z_sum(alpha, power) / math.sqrt(n)


def minimum_detectable_effect_t(n: int, alpha: float, power: float) -> float:
    """Smallest |d| that ``n`` pairs detect with the two-sided paired t-test (statsmodels).

    Example:
        >>> round(minimum_detectable_effect_t(100, alpha=0.05, power=0.80), 3)
        0.283
    """
    check_count(n, "n", _SMALLEST_T_SAMPLE)
    alpha = check_probability(alpha, "alpha")
    power = check_probability(power, "power")
    solver = TTestPower()
    effect = float(solver.solve_power(effect_size=None, nobs=n, alpha=alpha, power=power, alternative="two-sided"))
    if not math.isfinite(effect):
        raise ArithmeticError(f"statsmodels found no detectable effect for n={n}, alpha={alpha}, power={power}")
    return effect
