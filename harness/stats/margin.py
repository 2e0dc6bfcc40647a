"""Five verdicts at a margin: what a comparison's interval shows, and nothing more.

"Not significantly worse" is not "as good": absence of evidence is not evidence of equivalence.
A challenger is only called as good as the champion when its interval of ``challenger - champion``
(:func:`harness.stats.equivalence.interval`, at the level the sweep's correction tested it at,
:mod:`harness.stats.simultaneous`) shows it, at a margin stated in YAML (``stats.primary.margin``,
each guard's ``margin``). With the interval turned so that positive means the challenger is better:

- ``better``: the interval lies above 0 (the difference test rejects);
- ``worse``: the interval lies below 0, by however little;
- ``equivalent``: the interval lies inside ``(-margin, +margin)`` (TOST);
- ``non_inferior``: the interval's lower end is above ``-margin`` (at most ``margin`` worse);
- ``undecided``: none of these; the question count that would decide it is seed 003's minimum
  sample size (7.4) for the effect that matters, the observed difference plus the margin:
  ``N = ((z_{1-level/2} + z_power) * sd / (difference + margin))^2`` (to show non-inferiority), or
  for the observed difference alone when it is negative (to show it worse), whichever is fewer.

Example:
    >>> judge(0.004, (-0.003, 0.008), margin=0.01, direction="higher").verdict
    'equivalent'
    >>> judge(-0.068, (-0.127, -0.011), margin=0.01, direction="higher").verdict
    'worse'
    >>> judge(-0.01, (-0.05, 0.03), margin=0.01, direction="higher", sd=0.2, n=84, level=0.05, power=0.8).verdict
    'undecided'
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from scipy.stats import norm

VERDICTS = ("better", "worse", "equivalent", "non_inferior", "undecided")
# The verdicts under which a challenger may stand in for the one it is compared with.
AS_GOOD = ("better", "equivalent", "non_inferior")


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
    shown = f"interval [{low:+.4g}, {high:+.4g}]"
    if lo > 0:
        return MarginVerdict("better", low, high, None, f"better: the {shown} lies above 0")
    if hi < 0:
        inside = " (within the margin, but shown worse)" if lo > -margin else ""
        return MarginVerdict("worse", low, high, None, f"worse: the {shown} lies below 0{inside}")
    if lo > -margin and hi < margin:
        return MarginVerdict("equivalent", low, high, None, f"equivalent: the {shown} lies inside ±{margin:g}")
    if lo > -margin:
        return MarginVerdict("non_inferior", low, high, None,
                             f"non-inferior: the {shown} ends above -{margin:g} (at most {margin:g} worse)")
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
    z = float(norm.isf(level / 2) + norm.ppf(power))
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
    z = float(norm.isf(level / 2) + norm.isf((1 - power) / 2))
    return math.ceil((z * sd / margin) ** 2)


def mirrored(verdict: MarginVerdict, difference: float | None, margin: float, direction: str, sd: float | None,
             n: int, level: float | None, power: float) -> MarginVerdict:
    """The same comparison read the other way round (champion against challenger): the interval of
    ``-(challenger - champion)``; ``difference`` is the original ``challenger - champion``."""
    bounds = None if verdict.low is None else (-verdict.high, -verdict.low)
    return judge(None if difference is None else -difference, bounds, margin, direction, sd, n, level, power)
