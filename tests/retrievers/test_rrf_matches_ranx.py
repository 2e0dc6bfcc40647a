"""Our reciprocal-rank fusion equals ranx.fuse(method="rrf") on random rankings."""

from __future__ import annotations

import random
import warnings

import pytest
from ranx import Run, fuse

from harness.retrievers.base import ranked
from harness.retrievers.hybrid import reciprocal_rank_fusion
from tests.shared import once


def random_ranking(rng: random.Random, pool: int, depth: int) -> list[tuple[int, float]]:
    # Distinct scores: ranx and we may order ties differently, fusion itself is what is compared.
    chunks = rng.sample(range(pool), depth)
    return sorted(((c, rng.random() + i * 1e-9) for i, c in enumerate(chunks)), key=lambda p: -p[1])


SEEDS, RRF_KS = range(20), [0, 1, 60]


def random_queries(seed: int) -> list[list[list[tuple[int, float]]]]:
    """Five queries, each with two rankings to fuse."""
    rng = random.Random(seed)
    return [[random_ranking(rng, 40, rng.randint(1, 30)) for _ in range(2)] for _ in range(5)]


@pytest.fixture(scope="session")
def ranx_fused(tmp_path_factory) -> dict[str, dict]:
    """ranx.fuse's result for every case, computed in one test process: numba compiles ranx in each
    process that calls it (tens of CPU seconds), so the other xdist workers read the results."""

    def build(_folder) -> dict[str, dict]:
        results = {}
        for seed in SEEDS:
            queries = random_queries(seed)
            for rrf_k in RRF_KS:
                runs = [Run({str(q): {str(c): s for c, s in rankings[i]} for q, rankings in enumerate(queries)})
                        for i in range(2)]
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    theirs = fuse(runs=runs, norm=None, method="rrf", params={"k": rrf_k})
                results[f"{seed}-{rrf_k}"] = {q: {c: float(s) for c, s in theirs[q].items()} for q in theirs.keys()}
        return results

    return once(tmp_path_factory, "ranx_rrf", build)


@pytest.mark.slow
@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("rrf_k", RRF_KS)
def test_rrf_equals_ranx(seed, rrf_k, ranx_fused):
    queries = random_queries(seed)
    ours = [dict(reciprocal_rank_fusion(rankings, rrf_k)) for rankings in queries]
    theirs = ranx_fused[f"{seed}-{rrf_k}"]
    for q, fused in enumerate(ours):
        expected = {int(c): s for c, s in theirs[str(q)].items()}
        assert fused.keys() == expected.keys()
        for chunk, score in fused.items():
            assert score == pytest.approx(expected[chunk], abs=1e-12)


def test_ranked_breaks_ties_by_chunk_index():
    assert ranked([(3, 0.5), (1, 0.5), (2, 0.9)], 2) == [(2, 0.9), (1, 0.5)]
