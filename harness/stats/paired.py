"""Paired samples: per-question values of two systems aligned by question id.

Example:
    >>> s = align({"q1": 0.5, "q2": 0.25, "q3": None}, {"q1": 0.75, "q2": 0.25, "q3": 1.0})
    >>> s.ids, s.differences.tolist(), s.missing, s.missing_ids
    (('q1', 'q2'), [0.25, 0.0], 1, ('q3',))
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

# Differences this small relative to the scores themselves are float rounding of equal scores
# (0.3 - 0.2 != 0.4 - 0.3), not effects; scipy would turn them into t ~ 1e15 and p ~ 1e-32.
_RELATIVE_TOLERANCE = 1e-12
_SHOWN_IDS = 20


class MisalignedError(ValueError):
    """The two systems were scored on different question sets.

    Attributes:
        only_champion: ids present only on the champion side (sorted).
        only_challenger: ids present only on the challenger side (sorted).
    """

    def __init__(self, only_champion: list, only_challenger: list, label: str = "") -> None:
        self.only_champion = only_champion
        self.only_challenger = only_challenger
        self.label = label
        prefix = f"{label}: " if label else ""
        super().__init__(
            f"{prefix}champion and challenger were scored on different question ids: "
            f"{_listing(only_champion)} only in champion, {_listing(only_challenger)} only in challenger"
        )

    def __reduce__(self):  # picklable, so it crosses process boundaries (joblib launcher)
        return type(self), (self.only_champion, self.only_challenger, self.label)


def _listing(ids: list) -> str:
    shown = ", ".join(map(repr, ids[:_SHOWN_IDS]))
    more = f", ... ({len(ids) - _SHOWN_IDS} more)" if len(ids) > _SHOWN_IDS else ""
    return f"{len(ids)} [{shown}{more}]"


@dataclass(frozen=True)
class PairedSample:
    """Champion and challenger values on the same questions, in ``ids`` order.

    Attributes:
        ids: question ids of the usable pairs, sorted.
        champion: champion values, one per id.
        challenger: challenger values, one per id.
        missing_ids: ids dropped because either value was None or NaN (e.g. a failed judgement).
    """

    ids: tuple
    champion: np.ndarray
    challenger: np.ndarray
    missing_ids: tuple = field(default=())

    @property
    def n(self) -> int:
        return len(self.ids)

    @property
    def missing(self) -> int:
        return len(self.missing_ids)

    @property
    def differences(self) -> np.ndarray:
        """``challenger - champion`` per question (positive = challenger scored higher)."""
        return self.challenger - self.champion

    @property
    def tolerance(self) -> float:
        """Largest spread of the differences still treated as rounding noise of equal scores."""
        if self.n == 0:
            return 0.0
        scale = max(float(np.max(np.abs(self.champion))), float(np.max(np.abs(self.challenger))))
        return _RELATIVE_TOLERANCE * scale

    def all_zero(self) -> bool:
        """True when every difference is zero (up to rounding of equal scores)."""
        return self.n > 0 and float(np.max(np.abs(self.differences))) <= self.tolerance

    def constant(self) -> bool:
        """True when the differences have zero variance (up to rounding)."""
        return self.n > 0 and float(np.ptp(self.differences)) <= self.tolerance


def _is_missing(value) -> bool:
    return value is None or (isinstance(value, (float, np.floating)) and math.isnan(value))


def _value(value, side: str, qid) -> float:
    number = float(value)
    if not math.isfinite(number):
        raise ValueError(f"{side}[{qid!r}] is {number}; values must be finite, or None/NaN for missing")
    return number


def align(
    champion: dict[str, float | None], challenger: dict[str, float | None], label: str = ""
) -> PairedSample:
    """Pair two systems' per-question values by question id.

    Args:
        champion: question id -> value of the current system (None/NaN = no value).
        challenger: question id -> value of the candidate system, same ids.
        label: prefix for error messages (e.g. the metric name).

    Returns:
        The pairs where both values exist, sorted by id; dropped ids in ``missing_ids``.

    Raises:
        MisalignedError: the two id sets differ (the message lists the ids on each side).
        ValueError: a value is infinite.

    Example:
        >>> align({"a": 1.0}, {"b": 1.0})  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        harness.stats.paired.MisalignedError: ...: 1 ['a'] only in champion, 1 ['b'] only in challenger
    """
    if champion.keys() != challenger.keys():
        raise MisalignedError(
            sorted(champion.keys() - challenger.keys(), key=str),
            sorted(challenger.keys() - champion.keys(), key=str),
            label,
        )
    ids, a, b, missing = [], [], [], []
    for qid in sorted(champion, key=str):
        x, y = champion[qid], challenger[qid]
        if _is_missing(x) or _is_missing(y):
            missing.append(qid)
            continue
        ids.append(qid)
        a.append(_value(x, "champion", qid))
        b.append(_value(y, "challenger", qid))
    return PairedSample(tuple(ids), np.asarray(a, dtype=float), np.asarray(b, dtype=float), tuple(missing))
