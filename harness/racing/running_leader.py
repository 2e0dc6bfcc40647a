"""The evidence against one configuration, bet question by question on the running leader.

A gambler starts with 1 and, before each question ``s`` of the race order, picks the rival that
leads on the questions before ``s`` (the best mean of the primary metric among the configurations
still running question ``s``, the tested one excluded) and stakes, with the bet that rival's pair
would make (:func:`harness.racing.confseq.difference_log_e_process`), that it beats the tested
configuration on ``s``. Every choice uses only earlier questions, and each pair's bet is fair or
worse for the gambler when the tested configuration is truly a best one, so the wealth is then a
nonnegative supermartingale from 1: by Ville's inequality it ever reaches ``1 / level`` with
probability at most ``level``, although the race reads it after every round and the leader
changes. Rivals that left the race stop being candidates from the question after their last one.

``race.test=asymptotic`` has no per-question bets to stake: its evidence is the asymptotic
sequence's mixture (:func:`harness.racing.asymptotic.asymptotic_log_e`) over the stitched
differences, question by question, between the rival then leading and the tested configuration.
When that configuration is truly a best one, each difference has a conditional mean of at most 0
whichever rival leads, so their running mean is covered by the sequence in the limit (the
paper's martingale version, Waudby-Smith et al. 2024, section 3).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np

from harness.racing.asymptotic import Asymptotic
from harness.racing.confseq import check_in_bounds, difference_log_e_process


def running_leader_log_wealth(name: str, values: Mapping[str, Sequence[float | None]], higher_is_better: bool,
                              low: float, high: float, level: float, test: str | Asymptotic) -> np.ndarray:
    """Log wealth after each question ``name`` ran, betting against the running leader.

    Args:
        name: the tested configuration.
        values: every configuration that started the race -> its values in race order on the
            questions it ran (a prefix; shorter for those that left; None or NaN: no value, no bet).
        higher_is_better: the metric's direction.
        low, high: the range of every value.
        level: the level the empirical-Bernstein and Hoeffding bets are tuned for.
        test: ``betting``, ``empirical_bernstein``, ``hoeffding`` or a tuned :class:`Asymptotic`
            (its mixture over the stitched differences, -inf before its burn-in).
    """
    floats = {other: _floats(got) for other, got in values.items()}
    for other, got in floats.items():
        check_in_bounds(other, got, low, high, missing_ok=True)
    own = floats[name]
    n = len(own)
    rivals = [r for r in floats if r != name]
    if not rivals or n == 0:
        return np.zeros(n)
    sign = 1.0 if higher_is_better else -1.0
    table = np.full((len(rivals), n), np.nan)
    running = np.zeros((len(rivals), n), dtype=bool)
    for row, rival in enumerate(rivals):
        mine = floats[rival][:n]
        table[row, :len(mine)] = mine
        running[row, :len(mine)] = True
    leaders = _leaders(sign * table, running)
    if isinstance(test, Asymptotic):
        return _stitched_log_e(table, own, leaders, higher_is_better, low, high, level, test)
    increments = np.zeros(n)
    for row in np.unique(leaders[leaders >= 0]):
        steps = _pair_steps(table[row], own, higher_is_better, low, high, level, test)
        chosen = leaders == row
        increments[chosen] = steps[chosen]
    return np.cumsum(increments)


def _leaders(signed: np.ndarray, running: np.ndarray) -> np.ndarray:
    """Per question, the row of the rival with the best mean on the earlier questions among those
    running it (the first of equals; one with no value yet ranks below any mean), or -1."""
    present = ~np.isnan(signed)
    sums = np.cumsum(np.where(present, signed, 0.0), axis=1)
    counts = np.cumsum(present, axis=1)
    # Means over the questions *before* each one: shift right by one.
    sums = np.concatenate([np.zeros((signed.shape[0], 1)), sums[:, :-1]], axis=1)
    counts = np.concatenate([np.zeros((signed.shape[0], 1)), counts[:, :-1]], axis=1)
    means = np.where(counts > 0, sums / np.maximum(counts, 1), -1e300)  # no value yet: below any mean
    leaders = np.argmax(np.where(running, means, -math.inf), axis=0)
    return np.where(running.any(axis=0), leaders, -1)


def _pair_steps(rival: np.ndarray, own: np.ndarray, higher_is_better: bool, low: float, high: float,
                level: float, test: str) -> np.ndarray:
    """Per question, the log factor of the pair's own bet that ``rival`` beats ``own`` (0 where
    either has no value); the pair's bets use only the questions both have values for."""
    both = ~np.isnan(rival) & ~np.isnan(own)
    steps = np.zeros(len(own))
    if both.any():
        better, worse = (rival[both], own[both]) if higher_is_better else (own[both], rival[both])
        wealth = difference_log_e_process(better, worse, low, high, 0.0, level, test)
        steps[both] = np.diff(wealth, prepend=0.0)
    return steps


def _stitched_log_e(table: np.ndarray, own: np.ndarray, leaders: np.ndarray, higher_is_better: bool, low: float,
                    high: float, level: float, test: Asymptotic) -> np.ndarray:
    """Per question, the asymptotic mixture's log evidence over the differences so far between
    each question's leading rival and ``own`` (carried over questions without a pair; -inf
    before the first and before the burn-in)."""
    rows = np.maximum(leaders, 0)
    rival = np.where(leaders >= 0, table[rows, np.arange(len(own))], np.nan)
    both = ~np.isnan(rival) & ~np.isnan(own)
    out = np.full(len(own), -np.inf)
    if both.any():
        better, worse = (rival[both], own[both]) if higher_is_better else (own[both], rival[both])
        evidence = difference_log_e_process(better, worse, low, high, 0.0, level, test)
        filled = np.cumsum(both) - 1  # index of the latest pair up to each question
        out = np.where(filled >= 0, evidence[np.maximum(filled, 0)], -np.inf)
    return out


def _floats(values: Sequence[float | None]) -> np.ndarray:
    return np.array([math.nan if v is None else float(v) for v in values], dtype=float)
