"""A seeded subset of a dataset's questions: the first ``limit``, or a random ``sample``."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import TypeVar

T = TypeVar("T")


def check_subset(limit: int | None, sample: int | None) -> None:
    """Refuses a non-positive size or both options at once (they answer different questions)."""
    for key, value in (("limit", limit), ("sample", sample)):
        if value is not None and value < 1:
            raise ValueError(f"dataset.{key} must be >= 1 or null, got {value}")
    if limit is not None and sample is not None:
        raise ValueError("dataset.limit and dataset.sample are exclusive: give one of them")


def select(items: Sequence[T], limit: int | None, sample: int | None, seed: int) -> list[T]:
    """The first ``limit`` items, or ``sample`` items drawn with ``seed`` and kept in file order.

    Example:
        >>> select(list("abcdef"), limit=2, sample=None, seed=0)
        ['a', 'b']
        >>> select(list("abcdef"), limit=None, sample=3, seed=0) == select(list("abcdef"), None, 3, 0)
        True
    """
    check_subset(limit, sample)
    if limit is not None:
        return list(items[:limit])
    if sample is None or sample >= len(items):
        return list(items)
    chosen = sorted(random.Random(seed).sample(range(len(items)), sample))
    return [items[i] for i in chosen]
