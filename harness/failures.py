"""Failure accounting for the stages that call models: answering and judging.

A call that failed (connection refused, HTTP 401, a reply with no answer in it...) is counted
with its reason, never scored as an empty answer or a missing score of 0. A job in which more
than its stage's ``max_failed_fraction`` (YAML: ``generation.max_failed_fraction``,
``judge.max_failed_fraction``) of the calls failed, or in which every call failed whatever the
threshold, is FAILED and makes ``harness`` exit non-zero, with its metrics still logged.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

REASONS_KEPT = 5  # most common reasons kept in the job summary
# What a failed question scores (app.on_failure, generation.on_failure): a miss on every quality
# metric, or nothing (it drops out of every run's paired comparison).
ON_FAILURE = ("miss", "exclude")


def check_fraction(name: str, value: float) -> float:
    """``value`` if it is a share in [0, 1]; otherwise a ValueError naming ``name``."""
    if not 0.0 <= float(value) <= 1.0:
        raise ValueError(f"{name} must be between 0 and 1, got {value}")
    return float(value)


@dataclass
class FailureTally:
    """The calls of one stage of one job: how many, and why each failed one failed.

    >>> tally = FailureTally("generation", max_failed_fraction=0.5)
    >>> for error in (None, "APIConnectionError: Connection error.", "APIConnectionError: Connection error."):
    ...     tally.add(error)
    >>> tally.failed, tally.attempted
    (2, 3)
    >>> print(tally.verdict())
    generation: 2 of 3 calls failed (67% > max_failed_fraction 0.5); most common reason (2x): APIConnectionError: ...
    """

    stage: str
    max_failed_fraction: float
    attempted: int = 0
    reasons: Counter[str] = field(default_factory=Counter)

    def add(self, error: str | None) -> None:
        """One call: ``error`` is None when it succeeded, else why it failed."""
        self.attempted += 1
        if error is not None:
            self.reasons[error] += 1

    @property
    def failed(self) -> int:
        return sum(self.reasons.values())

    def verdict(self) -> str | None:
        """Why the job fails because of this stage, or None when it does not."""
        if not self.failed:
            return None
        share = self.failed / self.attempted
        if self.failed == self.attempted:
            why = f"all {self.attempted} calls failed"
        elif share > self.max_failed_fraction:
            why = (f"{self.failed} of {self.attempted} calls failed "
                   f"({share:.0%} > max_failed_fraction {self.max_failed_fraction:g})")
        else:
            return None
        reason, count = self.reasons.most_common(1)[0]
        return f"{self.stage}: {why}; most common reason ({count}x): {reason}"

    def summary(self) -> dict[str, Any]:
        """JSON-ready counts for the job's ``info``."""
        return {"attempted": self.attempted, "failed": self.failed,
                "max_failed_fraction": self.max_failed_fraction,
                "reasons": dict(self.reasons.most_common(REASONS_KEPT))}


# The stages whose calls are the questions' answers: a failed call there is a failed question.
QUESTION_STAGES = ("app", "generation")
REASONS_SHOWN = 2  # reasons in a job's console line and under the leaderboard


def failed_questions(failures: dict[str, dict[str, Any]] | None) -> tuple[str, int, int, dict[str, int]] | None:
    """(stage, failed, asked, reasons) of the stage that answers the questions, from a job's
    ``info["failures"]`` (:meth:`FailureTally.summary` per stage); None when no question failed.

    >>> failed_questions({"app": {"attempted": 300, "failed": 39, "reasons": {"HTTP 500": 37, "timed out": 2}}})
    ('app', 39, 300, {'HTTP 500': 37, 'timed out': 2})
    """
    for stage in QUESTION_STAGES:
        summary = (failures or {}).get(stage)
        if summary and summary.get("failed"):
            return stage, int(summary["failed"]), int(summary["attempted"]), dict(summary.get("reasons") or {})
    return None


def failure_line(failures: dict[str, dict[str, Any]] | None) -> str | None:
    """A job's failed questions in one line, with the first reasons; None when none failed.

    >>> failure_line({"app": {"attempted": 300, "failed": 39, "reasons": {"HTTP 500": 37, "timed out": 2}}})
    'app: 39 of 300 questions failed (13%): 37x HTTP 500; 2x timed out'
    """
    found = failed_questions(failures)
    if found is None:
        return None
    stage, failed, asked, reasons = found
    shown = "; ".join(f"{count}x {reason}" for reason, count in list(reasons.items())[:REASONS_SHOWN])
    return f"{stage}: {failed} of {asked} questions failed ({failed / max(asked, 1):.0%}): {shown}"
