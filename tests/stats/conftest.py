"""Random paired data with ties and zeros, as per-question dicts, for the statistics tests."""

from __future__ import annotations

import numpy as np
import pytest

SIZES = [2, 3, 10, 50]
SEEDS = [0, 1, 2]


def paired_scores(n: int, seed: int) -> tuple[dict[str, float], dict[str, float]]:
    """Scores on a 0.1 grid (ties), challenger = champion + a small shift, some exactly equal (zeros)."""
    rng = np.random.default_rng(seed)
    champion = rng.integers(0, 11, n) / 10
    shift = rng.integers(-3, 5, n) / 10
    shift[rng.uniform(size=n) < 0.2] = 0.0
    challenger = np.clip(champion + shift, 0.0, 1.0)
    ids = [f"q{i:03d}" for i in range(n)]
    return dict(zip(ids, champion.tolist())), dict(zip(ids, challenger.tolist()))


@pytest.fixture(params=[(n, s) for n in SIZES for s in SEEDS], ids=lambda p: f"n{p[0]}-seed{p[1]}")
def random_pair(request) -> tuple[dict[str, float], dict[str, float]]:
    return paired_scores(*request.param)
