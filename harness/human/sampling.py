"""Which answers go to annotators (seed 003 section 8.2): stratified, worst-case or random.

All three are pure functions of the rows, ``n`` and the seed, so an export can be repeated.

* **stratified** (the seed's default): questions are grouped by error category
  (``answer/category_*`` flags of seed 003 section 6) and sampled proportionally, at least one
  from every non-empty group. The taxonomy is multi-label, and a stratified draw needs a
  partition, so a question belongs to its *rarest* category in the run: a rare failure mode
  then forms its own group instead of drowning in the common ones.
* **worst**: the ``n`` lowest on a column (``answer/badness`` by default; lower is worse).
* **random**: uniform, without replacement.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field
from typing import Any

from harness.human.table import number

Row = dict[str, Any]
UNCATEGORISED = "uncategorised"


@dataclass
class Sample:
    """The chosen rows in selection order, and how they were chosen.

    ``strata`` maps each group of a stratified draw to ``(questions in the run, questions drawn)``.
    """

    rows: list[Row]
    strategy: str
    seed: int
    strata: dict[str, tuple[int, int]] = field(default_factory=dict)

    def describe(self) -> str:
        text = f"{self.strategy} sample of {len(self.rows)} (seed {self.seed})"
        if self.strata:
            text += ": " + ", ".join(f"{name} {drawn}/{total}" for name, (total, drawn) in self.strata.items())
        return text


def sample_random(rows: list[Row], n: int, seed: int) -> list[Row]:
    """``n`` rows drawn uniformly without replacement (all rows if ``n`` covers them)."""
    if n >= len(rows):
        return list(rows)
    return random.Random(seed).sample(rows, n)


def sample_worst(rows: list[Row], n: int, column: str, direction: str = "lower") -> list[Row]:
    """The ``n`` worst rows on ``column``, worst first; ``direction`` says which end is worse.

    Rows without a number in the column are left out; ties keep the table's order.
    """
    scored = [row for row in rows if number(row.get(column)) is not None]
    if not scored:
        raise ValueError(f"no answered question has a number in column '{column}'; "
                         "choose another human.sample.worst_column or --strategy random")
    sign = 1.0 if direction == "lower" else -1.0
    return sorted(scored, key=lambda row: sign * number(row[column]))[:n]


def categories_of(rows: list[Row], prefix: str) -> dict[str, list[str]]:
    """question_id -> its error categories (the flag columns ``<prefix><name>`` set to 1)."""
    columns = sorted({key for row in rows for key in row if key.startswith(prefix)})
    if not columns:
        raise ValueError(f"the run table has no '{prefix}*' columns (the answer suite's error categories); "
                         "score the run with metrics.answer, or use --strategy worst or random")
    return {row["question_id"]: [c[len(prefix):] for c in columns if number(row.get(c)) == 1.0] for row in rows}


def strata_of(rows: list[Row], prefix: str) -> dict[str, list[Row]]:
    """Each row in the group of its rarest category (ties: alphabetical), in table order."""
    categories = categories_of(rows, prefix)
    counts: dict[str, int] = {}
    for names in categories.values():
        for name in names:
            counts[name] = counts.get(name, 0) + 1
    strata: dict[str, list[Row]] = {}
    for row in rows:
        names = categories[row["question_id"]]
        group = min(names, key=lambda c: (counts[c], c)) if names else UNCATEGORISED
        strata.setdefault(group, []).append(row)
    return dict(sorted(strata.items()))


def allocate(sizes: dict[str, int], n: int) -> dict[str, int]:
    """Proportional allocation of ``n`` draws over groups, at least one per non-empty group.

    Each group first gets ``max(1, floor(share))`` of its exact share ``n * size / total``; the
    draws still missing go to the largest remainders (Hamilton's method), and any excess made
    by the minimum of one is taken back from the smallest remainders among groups with more
    than one. Ties go to the group named first.

    >>> allocate({"a": 50, "b": 30, "c": 20}, 10)
    {'a': 5, 'b': 3, 'c': 2}
    >>> allocate({"common": 97, "rare": 3}, 10)
    {'common': 9, 'rare': 1}
    """
    groups = [g for g, size in sizes.items() if size > 0]
    total = sum(sizes[g] for g in groups)
    if n >= total:
        return {g: sizes[g] for g in groups}
    if n < len(groups):
        raise ValueError(f"a stratified sample needs at least one question per category: n={n} is fewer "
                         f"than the {len(groups)} non-empty categories ({', '.join(groups)})")
    share = {g: n * sizes[g] / total for g in groups}
    quota = {g: max(1, math.floor(share[g])) for g in groups}
    order = {g: i for i, g in enumerate(groups)}
    while sum(quota.values()) < n:
        grow = [g for g in groups if quota[g] < sizes[g]]
        quota[max(grow, key=lambda g: (share[g] - quota[g], -order[g]))] += 1
    while sum(quota.values()) > n:
        shrink = [g for g in groups if quota[g] > 1]
        quota[min(shrink, key=lambda g: (share[g] - quota[g], order[g]))] -= 1
    return quota


def sample_stratified(rows: list[Row], n: int, seed: int, prefix: str) -> tuple[list[Row], dict[str, tuple[int, int]]]:
    """A proportional stratified draw (see the module docstring); returns rows and strata."""
    strata = strata_of(rows, prefix)
    quota = allocate({group: len(members) for group, members in strata.items()}, n)
    rng = random.Random(seed)
    chosen: list[Row] = []
    for group, members in strata.items():
        chosen.extend(rng.sample(members, quota[group]))
    return chosen, {group: (len(members), quota[group]) for group, members in strata.items()}


def draw_sample(rows: list[Row], strategy: str, n: int, seed: int, worst_column: str, worst_direction: str,
                category_prefix: str) -> Sample:
    """Dispatches to the strategy named in the config or on the command line."""
    if n < 1:
        raise ValueError(f"the sample size must be >= 1, got {n}")
    if not rows:
        raise ValueError("the run has no answered questions to annotate (was it run with a generator?)")
    if strategy == "random":
        return Sample(sample_random(rows, n, seed), strategy, seed)
    if strategy == "worst":
        return Sample(sample_worst(rows, n, worst_column, worst_direction), strategy, seed)
    if strategy == "stratified":
        chosen, strata = sample_stratified(rows, n, seed, category_prefix)
        return Sample(chosen, strategy, seed, strata)
    raise ValueError(f"unknown sampling strategy {strategy!r}; use stratified, worst or random")
