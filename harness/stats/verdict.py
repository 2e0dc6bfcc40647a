"""Winner determination from the verdicts at the margins (seed 003, section 7.5).

1. Any guard metric shown ``worse`` (:mod:`harness.stats.margin`) -> the champion wins (safety first).
2. Else the primary metric: ``worse`` -> the champion; ``better`` -> the challenger; otherwise no
   winner, and the reason is the primary verdict's (with the questions that would decide it).

One vocabulary: the winner is read from the same verdicts the tables print, never from a second test.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from harness.stats.margin import MarginVerdict


@dataclass(frozen=True)
class Verdict:
    """``winner`` is ``"champion"``, ``"challenger"`` or ``"none"``; ``reason`` says why."""

    winner: str
    reason: str


def winner(primary: tuple[str, MarginVerdict], guards: Sequence[tuple[str, MarginVerdict]] = ()) -> Verdict:
    """The winner of one challenger-vs-champion comparison from its verdicts.

    Args:
        primary: (metric name, its verdict).
        guards: (metric name, its verdict) per guard.

    Example:
        >>> from harness.stats.margin import judge
        >>> f1 = judge(0.03, (0.01, 0.05), 0.01, "higher")
        >>> winner(("answer/f1", f1))
        Verdict(winner='challenger', reason='answer/f1 better: the interval [+0.01, +0.05] lies above 0')
    """
    regressed = [f"guard {name} {verdict.reason}" for name, verdict in guards if verdict.verdict == "worse"]
    if regressed:
        return Verdict("champion", "; ".join(regressed))
    name, verdict = primary
    side = {"worse": "champion", "better": "challenger"}.get(verdict.verdict, "none")
    return Verdict(side, f"{name} {verdict.reason}")
