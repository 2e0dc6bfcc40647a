"""End to end: `harness -m retriever=bm25,hybrid reranker=none,llm` with the embedded SmolLM2 reranker."""

from __future__ import annotations

import pytest

from harness.results.records import RunResult
from tests.conftest import TINY_DATASET_OVERRIDES
from tests.e2e.test_sweep import run_cli, runs_of, split

pytestmark = pytest.mark.slow


def test_reranked_runs_carry_first_stage_and_reranked_metrics_and_are_compared(tmp_path):
    done = run_cli(tmp_path, *TINY_DATASET_OVERRIDES, "retriever=bm25,hybrid", "reranker=none,llm",
                   "reranker.candidates=10")
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    client, runs = runs_of(tmp_path)
    parents, children = split(runs)
    assert len(parents) == 1 and len(children) == 4
    reranked = [c for c in children if c.data.params["choice.reranker"] == "llm"]
    plain = [c for c in children if c.data.params["choice.reranker"] == "none"]
    assert len(reranked) == 2 and len(plain) == 2
    for child in plain:
        assert not any(key.startswith(("first_stage/", "rerank/")) for key in child.data.metrics)
    for child in reranked:
        metrics = child.data.metrics
        assert {"first_stage/ndcg_at_5", "first_stage/recall_at_10", "retrieval/ndcg_at_5",
                "rerank/seconds_per_query", "time/rerank_seconds"} <= set(metrics)
        assert metrics["rerank/failed_queries"] == 0
        assert child.data.params["reranker.candidates"] == "10" and child.data.params["reranker.fusion"] == "rrf"
    # The first stage of a reranked run is the same ranking as the plain run of the same retriever.
    for retriever in ("bm25", "hybrid"):
        [with_llm] = [c for c in reranked if c.data.params["choice.retriever"] == retriever]
        [without] = [c for c in plain if c.data.params["choice.retriever"] == retriever]
        assert with_llm.data.metrics["first_stage/ndcg_at_5"] == pytest.approx(
            without.data.metrics["retrieval/ndcg_at_5"])
    # Per-question columns: first_stage/* beside retrieval/*, and the run metric is their mean.
    folders = [f for f in (tmp_path / "sweep").iterdir() if (f / "metrics.json").exists()]
    results = [RunResult.read(f) for f in folders]
    with_first = [r for r in results if "first_stage/ndcg_at_5" in r.metrics]
    assert len(with_first) == 2
    for result in with_first:
        rows = result.rows
        assert all("first_stage/ndcg_at_5" in row and row["first_stage_doc_ids"] for row in rows)
        assert result.metrics["first_stage/ndcg_at_5"] == pytest.approx(
            sum(row["first_stage/ndcg_at_5"] for row in rows) / len(rows))
        assert all(1 <= len(row["retrieved_chunk_ids"]) <= 5 for row in rows)   # top_k follows retriever.top_k
    # The paired statistics compare every run with the champion on the primary metric.
    champions = [c for c in children if c.data.metrics.get("stats/is_champion") == 1.0]
    assert len(champions) == 1
    assert all("stats/mean_diff/retrieval/ndcg_at_5" in c.data.metrics for c in children if c not in champions)
