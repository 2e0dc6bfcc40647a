"""Our reciprocal-rank fusion equals ranx.fuse(method="rrf") on random rankings."""

from __future__ import annotations

import random
import warnings

import pytest
from ranx import Run, fuse

from harness.retrievers.base import ranked
from harness.retrievers.hybrid import reciprocal_rank_fusion


def random_ranking(rng: random.Random, pool: int, depth: int) -> list[tuple[int, float]]:
    # Distinct scores: ranx and we may order ties differently, fusion itself is what is compared.
    chunks = rng.sample(range(pool), depth)
    return sorted(((c, rng.random() + i * 1e-9) for i, c in enumerate(chunks)), key=lambda p: -p[1])


@pytest.mark.parametrize("seed", range(20))
@pytest.mark.parametrize("rrf_k", [0, 1, 60])
def test_rrf_equals_ranx(seed, rrf_k):
    rng = random.Random(seed)
    queries = [[random_ranking(rng, 40, rng.randint(1, 30)) for _ in range(2)] for _ in range(5)]
    ours = [dict(reciprocal_rank_fusion(rankings, rrf_k)) for rankings in queries]
    runs = [Run({str(q): {str(c): s for c, s in rankings[i]} for q, rankings in enumerate(queries)})
            for i in range(2)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = fuse(runs=runs, norm=None, method="rrf", params={"k": rrf_k})
    for q, fused in enumerate(ours):
        expected = {int(c): s for c, s in theirs[str(q)].items()}
        assert fused.keys() == expected.keys()
        for chunk, score in fused.items():
            assert score == pytest.approx(expected[chunk], abs=1e-12)


def test_ranked_breaks_ties_by_chunk_index():
    assert ranked([(3, 0.5), (1, 0.5), (2, 0.9)], 2) == [(2, 0.9), (1, 0.5)]
