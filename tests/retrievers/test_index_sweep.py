"""End to end: ``harness -m retriever=dense retriever.index=exact,hnsw`` on the tiny BEIR set; the
second job reuses the first one's embeddings, and HNSW ranks the four documents as exact search does."""

from __future__ import annotations

import json

import pytest

from tests.conftest import TINY_BEIR
from tests.e2e.test_sweep import run_cli

pytestmark = pytest.mark.slow


def test_exact_and_hnsw_side_by_side_in_a_sweep(tmp_path):
    done = run_cli(tmp_path, "dataset=beir", f"dataset.path={TINY_BEIR}", "chunker=none", "metrics=[retrieval]",
                   "retriever=dense", "retriever.index=exact,hnsw", "retriever.top_k=4")
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    results = {}
    for summary in (tmp_path / "sweep").glob("*/metrics.json"):
        facts = json.loads(summary.read_text())
        rows = [json.loads(line) for line in (summary.parent / "per_question.jsonl").read_text().splitlines()]
        overrides = (summary.parent / ".hydra" / "overrides.yaml").read_text()
        results["hnsw" if "index=hnsw" in overrides else "exact"] = (facts, rows)
    assert set(results) == {"exact", "hnsw"}
    exact, hnsw = results["exact"], results["hnsw"]
    assert hnsw[0]["metrics"] == exact[0]["metrics"]
    assert [r["question_id"] for r in hnsw[1]] == [r["question_id"] for r in exact[1]]
    caches = sorted((facts["info"]["cache"] for facts, _ in results.values()), key=lambda c: c.get("dense/hit", 0))
    assert caches[0]["dense/miss"] == 1 and caches[1]["dense/hit"] == 1  # embedded once for both jobs
    assert caches[1].get("dense_index/miss", 0) + caches[0].get("dense_index/miss", 0) == 1  # only hnsw builds one
