"""What every reranker shares: per-(query, passage) caching, fusion to top_k, failure accounting."""

from __future__ import annotations

from typing import Any

import pytest

from harness.cache import DiskCache
from harness.chunkers.base import Chunk
from harness.rerankers.base import QueryScores, Reranker

CHUNKS = [Chunk(id=f"c{i}", doc_id=f"d{i}", text=text, start=0, end=len(text))
          for i, text in enumerate(["alpha beta", "gamma delta", "beta beta beta", "epsilon"])]


class CountingReranker(Reranker):
    """Scores a passage by how often the query's first word occurs in it; fails on 'boom'."""

    def __init__(self, **common: Any) -> None:
        super().__init__(**{"candidates": 4, "top_k": 2, "fusion": "replace", "weight": 0.5, "rrf_k": 60,
                            "include_title": False, **common})
        self.calls: list[tuple[str, list[str]]] = []

    def score(self, items):
        self.calls += items
        return [QueryScores(error="RuntimeError: boom") if query == "boom" else
                QueryScores(scores=[float(p.split().count(query.split()[0])) for p in passages])
                for query, passages in items]

    def fingerprint(self) -> dict[str, Any]:
        return {"reranker": "counting"}


def first_stage(*chunk_indices: int):
    return [(i, 10.0 - rank) for rank, i in enumerate(chunk_indices)]


def test_reranks_and_keeps_top_k(tmp_path):
    reranker = CountingReranker()
    out = reranker.rerank(["beta"], [first_stage(0, 1, 2, 3)], CHUNKS, DiskCache(tmp_path))
    assert out.rankings == [[(2, 3.0), (0, 1.0)]]
    assert out.pairs_scored == 4 and out.pairs_cached == 0 and out.tally.failed == 0


def test_scores_are_cached_per_query_and_passage_across_candidate_lists(tmp_path):
    cache = DiskCache(tmp_path)
    CountingReranker().rerank(["beta"], [first_stage(0, 1)], CHUNKS, cache)
    second = CountingReranker()
    out = second.rerank(["beta"], [first_stage(1, 2, 0)], CHUNKS, cache)  # another retriever's candidates
    assert second.calls == [("beta", ["beta beta beta"])]                  # only the new passage
    assert out.pairs_scored == 1 and out.pairs_cached == 2
    assert out.rankings == [[(2, 3.0), (0, 1.0)]]


@pytest.mark.parametrize("mode", ["off", "refresh"])
def test_cache_off_or_refresh_scores_again(tmp_path, mode):
    cache = DiskCache(tmp_path)
    CountingReranker().rerank(["beta"], [first_stage(0, 1)], CHUNKS, cache)
    again = CountingReranker(cache=mode)
    again.rerank(["beta"], [first_stage(0, 1)], CHUNKS, cache)
    assert len(again.calls) == 1


def test_a_failed_query_keeps_its_first_stage_order_and_is_counted(tmp_path):
    reranker = CountingReranker()
    out = reranker.rerank(["boom", "beta"], [first_stage(3, 0, 2), first_stage(0, 1, 2)], CHUNKS,
                          DiskCache(tmp_path))
    assert out.rankings[0] == [(3, 10.0), (0, 9.0)]   # first stage, cut to top_k
    assert out.rankings[1][0] == (2, 3.0)
    assert out.tally.failed == 1 and out.tally.attempted == 2
    assert out.tally.reasons == {"RuntimeError: boom": 1}
    # the failure is not cached: the next run asks again
    retry = CountingReranker()
    retry.rerank(["boom"], [first_stage(3, 0, 2)], CHUNKS, DiskCache(tmp_path))
    assert retry.calls == [("boom", ["epsilon", "alpha beta", "beta beta beta"])]


@pytest.mark.parametrize("bad, message", [({"top_k": 5}, "top_k <= candidates"), ({"weight": 1.5}, "weight"),
                                          ({"fusion": "mean"}, "mean"), ({"rrf_k": -1}, "rrf_k")])
def test_bad_settings_are_named(bad, message):
    with pytest.raises(ValueError, match=message):
        CountingReranker(**bad)
