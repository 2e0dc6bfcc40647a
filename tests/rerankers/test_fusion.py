"""Fusion of first-stage and reranker scores, against hand-computed values."""

from __future__ import annotations

import pytest

from harness.rerankers.fusion import interpolate, min_max, replace, rrf

FIRST = [(7, 12.0), (3, 10.0), (9, 4.0)]   # chunk, first-stage score (best first)
RERANK = [0.2, 0.9, 0.5]                   # reranker score of chunks 7, 3, 9


def test_replace_orders_by_the_reranker_alone():
    assert replace(FIRST, RERANK) == [(3, 0.9), (9, 0.5), (7, 0.2)]


def test_interpolate_mixes_min_max_normalised_scores():
    # first: 7 -> 1, 3 -> 0.75, 9 -> 0; reranker: 7 -> 0, 3 -> 1, 9 -> 3/7
    fused = dict(interpolate(FIRST, RERANK, weight=0.5))
    assert fused[7] == pytest.approx(0.5)
    assert fused[3] == pytest.approx(0.875)
    assert fused[9] == pytest.approx(0.5 * 3 / 7)
    assert [c for c, _ in interpolate(FIRST, RERANK, weight=0.5)] == [3, 7, 9]
    assert [c for c, _ in interpolate(FIRST, RERANK, weight=0.0)] == [7, 3, 9]   # the first stage alone
    assert [c for c, _ in interpolate(FIRST, RERANK, weight=1.0)] == [3, 9, 7]   # the reranker alone


def test_rrf_sums_reciprocal_ranks_of_both_orders():
    # first ranks: 7:1, 3:2, 9:3; reranker ranks: 3:1, 9:2, 7:3; k = 60
    fused = dict(rrf(FIRST, RERANK, rrf_k=60))
    assert fused[3] == pytest.approx(1 / 62 + 1 / 61)
    assert fused[7] == pytest.approx(1 / 61 + 1 / 63)
    assert fused[9] == pytest.approx(1 / 63 + 1 / 62)
    assert [c for c, _ in rrf(FIRST, RERANK, rrf_k=60)] == [3, 7, 9]  # 7 and 9 tie: first-stage order


def test_a_constant_reranker_keeps_the_first_stage_order():
    for fused in (replace(FIRST, [1.0] * 3), interpolate(FIRST, [1.0] * 3, 1.0)):
        assert [c for c, _ in fused] == [7, 3, 9]


def test_min_max():
    assert min_max([2.0, 4.0, 3.0]) == [0.0, 1.0, 0.5]
    assert min_max([5.0, 5.0]) == [0.0, 0.0]
    assert min_max([]) == []
