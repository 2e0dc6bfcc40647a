"""Five verdicts at a margin: where a comparison's interval lies against ``-margin``, 0 and ``+margin``.

"Not significantly worse" is not "as good": absence of evidence is not evidence of equivalence.
A challenger is only called as good as the champion when its interval of the mean of
``challenger - champion`` shows it, at a margin stated in YAML (``stats.primary.margin``, each
guard's ``margin``). The interval is at the level the family's error budget gives the comparison
(:mod:`harness.stats.family`). With the interval turned so that positive means the challenger is
better, the first that holds:

- ``better``: the interval lies above 0;
- ``equivalent``: the interval lies inside ``(-margin, +margin)``, whether or not it leaves out 0 (a
  difference shown but smaller than the margin is still equivalent, as the CONSORT extension for
  non-inferiority and equivalence trials reads such a trial: Piaggio et al., JAMA 2012, figure 1);
- ``non_inferior``: the interval's lower end is above ``-margin`` (at most ``margin`` worse);
- ``worse``: the interval lies below 0 and reaches ``-margin`` or beyond;
- ``undecided``: none of these; the question count that would decide it is seed 003's minimum
  sample size (7.4) for the effect that matters, the observed difference plus the margin:
  ``N = ((z_{1-level/2} + z_power) * sd / (difference + margin))^2`` (to show non-inferiority), or
  for the observed difference alone when it is negative (to show it worse), whichever is fewer.

As questions grow, a run whose true difference lies in ``(-margin, 0]`` ends ``equivalent`` or
``non_inferior``, never ``worse``: the margin keeps its meaning at any sample size.

Example:
    >>> judge(0.004, (-0.003, 0.008), margin=0.01, direction="higher").verdict
    'equivalent'
    >>> judge(-0.004, (-0.006, -0.002), margin=0.01, direction="higher").verdict
    'equivalent'
    >>> judge(-0.068, (-0.127, -0.011), margin=0.01, direction="higher").verdict
    'worse'
    >>> judge(-0.01, (-0.05, 0.03), margin=0.01, direction="higher", sd=0.2, n=84, level=0.05, power=0.8).verdict
    'undecided'
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.special import ndtri  # the normal quantile as a ufunc: scipy.stats.norm's methods cost ~50 us a call

VERDICTS = ("better", "equivalent", "non_inferior", "worse", "undecided")
# The verdicts under which a challenger may stand in for the one it is compared with.
AS_GOOD = ("better", "equivalent", "non_inferior")


# The rule, in order: the first verdict whose condition holds on the oriented interval [lo, hi].
_RULE = (("better", lambda lo, hi, m: lo > 0),
         ("equivalent", lambda lo, hi, m: (lo > -m) & (hi < m)),
         ("non_inferior", lambda lo, hi, m: lo > -m),
         ("worse", lambda lo, hi, m: hi < 0))


def classify(low, high, margin):
    """The verdict of oriented interval ends (positive: the challenger better), element-wise on arrays.

    Example:
        >>> classify([0.01, -0.005, -0.005, -0.05, -0.05], [0.03, 0.004, 0.02, -0.01, 0.02], 0.01).tolist()
        ['better', 'equivalent', 'non_inferior', 'worse', 'undecided']
    """
    low, high, margin = np.asarray(low, float), np.asarray(high, float), np.asarray(margin, float)
    return np.select([condition(low, high, margin) for _, condition in _RULE], [v for v, _ in _RULE],
                     default="undecided")


def _verdict(low: float, high: float, margin: float) -> str:
    """:func:`classify` of one interval (plain floats: numpy's select costs ~25 us a call)."""
    return next((verdict for verdict, condition in _RULE if condition(low, high, margin)), "undecided")


@dataclass(frozen=True)
class MarginVerdict:
    """A comparison's verdict at its margin.

    Attributes:
        verdict: one of :data:`VERDICTS`.
        low, high: the interval of ``challenger - champion`` the verdict read (None: not testable).
        questions_needed: for ``undecided``, the paired questions that would decide it at the
            observed difference and spread; else None.
        reason: the verdict in words.
    """

    verdict: str
    low: float | None
    high: float | None
    questions_needed: int | None
    reason: str


def judge(difference: float | None, bounds: tuple[float, float] | None, margin: float, direction: str,
          sd: float | None = None, n: int = 0, level: float | None = None, power: float = 0.8) -> MarginVerdict:
    """The verdict of one comparison.

    Args:
        difference: mean of ``challenger - champion`` (None: no pairs).
        bounds: the interval of that difference at ``1 - level`` (None: not testable).
        margin: how much worse still counts as as good, in the metric's units (>= 0).
        direction: ``"higher"`` or ``"lower"`` is better.
        sd: standard deviation of the per-question differences (for ``questions_needed``).
        n: paired questions behind the interval. level: the interval's level. power: the target power.
    """
    if bounds is None or difference is None:
        return MarginVerdict("undecided", None, None, None, "undecided: not testable (fewer than 2 paired questions)")
    low, high = bounds
    sign = 1.0 if direction == "higher" else -1.0
    lo, hi = sorted((sign * low, sign * high))  # positive: the challenger is better
    verdict = _verdict(lo, hi, margin)
    shown = f"interval [{low:+.4g}, {high:+.4g}]"
    if verdict == "better":
        return MarginVerdict(verdict, low, high, None, f"better: the {shown} lies above 0")
    if verdict == "equivalent":
        shown_difference = "; a difference smaller than the margin was shown" if lo > 0 or hi < 0 else ""
        return MarginVerdict(verdict, low, high, None,
                             f"equivalent: the {shown} lies inside ±{margin:g}{shown_difference}")
    if verdict == "non_inferior":
        return MarginVerdict(verdict, low, high, None,
                             f"non-inferior: the {shown} ends above -{margin:g} (at most {margin:g} worse)")
    if verdict == "worse":
        return MarginVerdict(verdict, low, high, None,
                             f"worse: the {shown} lies below 0 and reaches -{margin:g} or beyond")
    needed = questions_needed(sign * difference, sd, margin, level, power)
    more = (f"; about {needed} paired questions ({max(needed - n, 0)} more) would decide it at the observed "
            f"difference and spread" if needed is not None else "")
    return MarginVerdict("undecided", low, high, needed,
                         f"undecided: the {shown} reaches below -{margin:g} and above 0{more}")


def questions_needed(improvement: float, sd: float | None, margin: float, level: float | None,
                     power: float) -> int | None:
    """Paired questions at which the interval would, with ``power``, decide a comparison whose true
    improvement (positive: the challenger better) and spread are as observed: shown non-inferior when
    ``improvement > -margin``, shown worse when ``improvement < 0``, whichever needs fewer.
    None without a spread or a reachable decision.

    Example:
        >>> questions_needed(0.0, sd=0.27, margin=0.01, level=0.05, power=0.8)
        5722
    """
    if sd is None or level is None or not math.isfinite(sd) or sd <= 0:
        return None
    z = float(-ndtri(level / 2) + ndtri(power))
    effects = [effect for effect in (improvement + margin, -improvement) if effect > 0]
    if not effects:
        return None
    return math.ceil((z * sd / max(effects)) ** 2)


def questions_for_equivalence(sd: float, margin: float, level: float, power: float) -> int:
    """Paired questions at which two configurations that are truly equal (difference 0, spread
    ``sd``) are shown ``equivalent`` at ``margin`` with ``power``: both ends of the ``1 - level``
    interval inside the margin, ``N = ((z_{1-level/2} + z_{1-(1-power)/2}) * sd / margin)^2``.

    Example:
        >>> questions_for_equivalence(0.27, margin=0.01, level=0.05, power=0.8)
        7660
    """
    z = float(-ndtri(level / 2) - ndtri((1 - power) / 2))
    return math.ceil((z * sd / margin) ** 2)


def mirrored(verdict: MarginVerdict, difference: float | None, margin: float, direction: str, sd: float | None,
             n: int, level: float | None, power: float) -> MarginVerdict:
    """The same comparison read the other way round (champion against challenger): the interval of
    ``-(challenger - champion)``; ``difference`` is the original ``challenger - champion``."""
    bounds = None if verdict.low is None else (-verdict.high, -verdict.low)
    return judge(None if difference is None else -difference, bounds, margin, direction, sd, n, level, power)
