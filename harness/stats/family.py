"""A family of comparisons decided at one error budget: each comparison's interval of the mean
difference, its p-value, and its verdict at its margin (:mod:`harness.stats.margin`).

Every verdict reads an interval of the **mean** per-question difference (the quantity a margin is
stated on), the t interval ``mean ± t_{1-level/2, n-1} sd / sqrt(n)``, whatever test gives the
p-values: the Wilcoxon signed-rank test is about the pseudo-median, and its inverted interval
collapses on tie-heavy metrics (exact match, hit@k); a permutation interval would need more
resamples than a sweep can pay for at a corrected level. Differences that are all the same (identical
runs) give that value at both ends: there is no spread to be unsure of.

The level of the intervals (one for the whole family, ``alpha`` being the family's budget):

- ``bonferroni`` and ``holm``: ``alpha / K`` for K comparisons, each interval two-sided. The K
  intervals then cover their true differences simultaneously with probability at least
  ``1 - alpha`` (Bonferroni's inequality), so the probability of any false claim in the family
  (an "as good" claim whose truth is at or beyond ``-margin``, a ``better`` or ``worse`` of the
  wrong sign, an ``equivalent`` whose truth is at or beyond ``+margin``) is at most ``alpha``.
  Holm's step-down has no intervals of its own that say more: the intervals compatible with it
  (Strassburger and Bretz, Stat Med 2008; Guilbaud, Biometrical Journal 2008) give a rejected
  comparison only its margin as a bound, and raising the levels of the comparisons left after the
  clearly different ones were rejected is valid only for the hypotheses the step-down tested, not
  for claims at a margin (simulated: ``tests/stats/test_decision_simulation.py``). Under ``holm``
  the verdicts therefore read Bonferroni's intervals, and ``p_adjusted`` is Holm's.
- ``bh``: the false-claim rate, the expected share of false claims among the verdicts that make
  one (all but ``undecided``), is held at ``alpha``: every interval is built at ``alpha * R / K``,
  R the largest r for which at least r comparisons make a claim at level ``alpha * r / K``
  (Benjamini and Yekutieli's false-coverage-rate intervals, JASA 2005, with the claims as the
  selection, found step-up as Benjamini-Hochberg finds its rejections).
- ``none``: every interval at ``alpha``; no promise for the family.

Example:
    >>> import numpy as np
    >>> decided = decide_family([np.array([0.1, 0.2, 0.0, 0.1, 0.15])], [0.01], ["higher"], "t", "none", 0.05)
    >>> round(decided.low[0], 4), round(decided.high[0], 4), decided.verdicts[0].verdict
    (0.0179, 0.2021, 'better')
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy import stats

from harness.stats.correction import METHODS, correct
from harness.stats.margin import MarginVerdict, classify, judge

_ROUNDING = 1e-12  # relative spread of differences that is float rounding, as in harness.stats.paired
# Permutation resamples per tested comparison and unit of alpha: the smallest p-value a random
# permutation test can give is 1/(B+1), so B = 10 K / alpha lets a Bonferroni-adjusted p fall to alpha/10.
_RESAMPLES_PER_COMPARISON = 10
_SIGN_BLOCK = 2000  # sign patterns drawn at once (memory: block x questions floats)


@dataclass(frozen=True)
class FamilyDecision:
    """Per comparison, in input order: the sample's size, mean and spread, the selected test's
    p-value (None: untestable), the adjusted p-value (comparable with the whole ``alpha``), the
    interval at ``level`` and the verdict."""

    n: np.ndarray
    mean: np.ndarray
    sd: np.ndarray
    p: list[float | None]
    p_adjusted: list[float | None]
    level: float | None
    low: list[float | None]
    high: list[float | None]
    verdicts: list[MarginVerdict]


def decide_family(differences: Sequence[np.ndarray], margins: Sequence[float], directions: Sequence[str],
                  test: str, correction: str, alpha: float, share: float = 1.0, power: float = 0.8,
                  resamples: int = 1000, seed: int = 0) -> FamilyDecision:
    """Decide every comparison of one family at one error budget.

    Args:
        differences: per comparison, the per-question ``challenger - reference`` values (no NaN).
        margins, directions: per comparison, its metric's margin and ``"higher"``/``"lower"``.
        test: ``"t"``, ``"wilcoxon"`` or ``"permutation"``: the p-values (not the intervals).
        correction: ``"holm"``, ``"bonferroni"``, ``"bh"`` or ``"none"`` (the module's docstring).
        alpha: the whole error budget; ``share``: the fraction of it this family spends (the rest
            goes to another family, e.g. the front's pairs).
        power: the target power of ``questions_needed``. resamples, seed: the permutation test's.
    """
    if correction not in METHODS:
        raise ValueError(f"correction must be one of {sorted(METHODS)}, got {correction!r}")
    matrix = _padded(differences)
    n = np.sum(~np.isnan(matrix), axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.where(n > 0, np.nansum(matrix, axis=0) / np.maximum(n, 1), np.nan)
        sd = np.where(n > 1, np.sqrt(np.nansum((matrix - mean) ** 2, axis=0) / np.maximum(n - 1, 1)), np.nan)
    spread = np.nanmax(matrix, axis=0, initial=-np.inf) - np.nanmin(matrix, axis=0, initial=np.inf)
    scale = np.nanmax(np.abs(np.nan_to_num(matrix)), axis=0, initial=0.0)
    constant = (n > 0) & (spread <= _ROUNDING * scale)
    tested = n >= 2
    budget = alpha * share
    count = int(tested.sum())
    orientation = np.array([1.0 if d == "higher" else -1.0 for d in directions])
    margin = np.asarray(margins, dtype=float)

    def ends(level: float) -> tuple[np.ndarray, np.ndarray]:
        with np.errstate(invalid="ignore", divide="ignore"):
            half = stats.t.isf(level / 2, np.maximum(n - 1, 1)) * sd / np.sqrt(np.maximum(n, 1))
        half = np.where(constant, 0.0, half)
        return mean - half, mean + half

    def claims(level: float) -> int:
        low, high = ends(level)
        oriented = np.sort(np.stack([orientation * low, orientation * high]), axis=0)
        return int(np.sum((classify(oriented[0], oriented[1], margin) != "undecided") & tested))

    level = _level(count, correction, budget, claims)
    low, high = ends(level) if level is not None else (mean * np.nan, mean * np.nan)
    p = _p_values(matrix, n, mean, constant, test, resamples, seed, max(count, 1), budget)
    adjusted = [None if value is None else min(1.0, value / share) for value in correct(p, correction)]
    verdicts, lows, highs = [], [], []
    for k in range(len(differences)):
        bounds = (float(low[k]), float(high[k])) if tested[k] else None
        spread_k = float(sd[k]) if n[k] >= 2 else None
        verdicts.append(judge(float(mean[k]) if n[k] else None, bounds, float(margin[k]), directions[k],
                              spread_k, int(n[k]), level, power))
        lows.append(bounds[0] if bounds else None)
        highs.append(bounds[1] if bounds else None)
    return FamilyDecision(n, mean, sd, p, adjusted, level, lows, highs, verdicts)


def _level(count: int, correction: str, alpha: float, claims) -> float | None:
    """The level of every interval of a family of ``count`` tested comparisons (the module's docstring)."""
    if count == 0:
        return None
    if METHODS[correction] is None:
        return alpha
    if correction in ("holm", "bonferroni"):
        return alpha / count
    # bh, step-up: the largest r with at least r claims at alpha * r / count (never more than at alpha)
    for r in range(min(claims(alpha), count), 0, -1):
        if claims(alpha * r / count) >= r:
            return alpha * r / count
    return alpha / count


def _padded(differences: Sequence[np.ndarray]) -> np.ndarray:
    """The differences as columns of one matrix, NaN below each column's end."""
    rows = max((len(d) for d in differences), default=0)
    matrix = np.full((rows, len(differences)), np.nan)
    for k, d in enumerate(differences):
        matrix[:len(d), k] = np.asarray(d, dtype=float)
    return matrix


def _p_values(matrix: np.ndarray, n: np.ndarray, mean: np.ndarray, constant: np.ndarray, test: str,
              resamples: int, seed: int, count: int, alpha: float) -> list[float | None]:
    """The two-sided p-value of ``test`` for a zero mean difference, per column; None where the
    test cannot run (fewer than 2 values, all differences zero, or for the t test no spread)."""
    testable = (n >= 2) & ~(constant & (mean == 0))
    if test == "t":
        testable &= ~constant
        with np.errstate(invalid="ignore", divide="ignore"):
            sd = np.sqrt(np.nansum((matrix - mean) ** 2, axis=0) / np.maximum(n - 1, 1))
            values = 2 * stats.t.sf(np.abs(mean / (sd / np.sqrt(np.maximum(n, 1)))), np.maximum(n - 1, 1))
    elif test == "wilcoxon":
        values = np.full(len(n), np.nan)
        for k in np.flatnonzero(testable):
            column = matrix[:n[k], k]
            if np.any(column):
                values[k] = stats.wilcoxon(column, zero_method="wilcox", alternative="two-sided").pvalue
    elif test == "permutation":
        needed = math.ceil(_RESAMPLES_PER_COMPARISON * count / alpha)
        values = _sign_flip_p(matrix, n, mean, max(resamples, needed), seed)
    else:
        raise ValueError(f"test must be 't', 'wilcoxon' or 'permutation', got {test!r}")
    return [float(v) if testable[k] and math.isfinite(v) else None for k, v in enumerate(values)]


def _sign_flip_p(matrix: np.ndarray, n: np.ndarray, mean: np.ndarray, resamples: int, seed: int) -> np.ndarray:
    """Two-sided sign-flip permutation p-values of every column's mean at once.

    scipy's ``permutation_test`` (the library this equals, tested) takes one sample at a time and
    holds every resample in memory; a family needs ``10 K / alpha`` resamples for its corrected
    level, so the signs are drawn once in blocks and applied to every column by one matrix product.
    Exact (every sign pattern) when ``2**rows <= resamples``, as scipy does; otherwise
    ``(hits + 1) / (resamples + 1)``, scipy's estimate.
    """
    rows = matrix.shape[0]
    filled = np.nan_to_num(matrix)
    observed = np.abs(mean)
    tolerance = observed * 1e-14  # scipy's relative tolerance for ties with the observed statistic
    hits = np.zeros(matrix.shape[1])
    exact = rows < 63 and 2 ** rows <= resamples
    total = 2 ** rows if exact else resamples
    rng = np.random.default_rng(seed)
    for start in range(0, total, _SIGN_BLOCK):
        size = min(_SIGN_BLOCK, total - start)
        if exact:
            patterns = np.arange(start, start + size)[:, None] >> np.arange(rows)[None, :] & 1
            signs = 1.0 - 2.0 * patterns
        else:
            signs = rng.choice([-1.0, 1.0], size=(size, rows))
        means = (signs @ filled) / np.maximum(n, 1)
        hits += np.sum(np.abs(means) >= observed - tolerance, axis=0)
    return hits / total if exact else (hits + 1) / (resamples + 1)
