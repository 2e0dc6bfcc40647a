"""The pipeline never scores with a corrupt cache entry: a dense-embedding .npy whose header is
intact but whose body is noise is detected, recomputed, counted, and nDCG stays what it was."""

from __future__ import annotations

import numpy as np
import pytest

from harness.cache import DiskCache
from harness.jobs import build_job
from harness.stages.pipeline import run_pipeline
from tests.conftest import TINY_BEIR


def test_noise_in_dense_embeddings_is_recomputed_and_ndcg_stays_right(compose, tmp_path, caplog):
    cfg = compose(["dataset=beir", f"dataset.path={TINY_BEIR}", "chunker=none", "retriever=dense",
                   "retriever.device=cpu", "metrics=[retrieval]", f"cache.dir={tmp_path}"])
    job = build_job(cfg)

    def run():
        cache = DiskCache(tmp_path)
        result = run_pipeline(job.dataset, job.chunker, job.retriever, job.suites, cache)
        return result.metrics["retrieval/ndcg_at_5"], result.info["cache"]

    clean, first = run()
    assert first == {"chunks/miss": 1, "dense/miss": 1, "dense_queries/miss": 1}
    (entry,) = (tmp_path / "v2" / "dense").iterdir()
    stored = entry / "array.npy"
    original = np.load(stored, allow_pickle=False)
    with stored.open("wb") as handle:  # same header (shape, dtype), noise body
        np.save(handle, np.random.default_rng(1).standard_normal(original.shape).astype(original.dtype))

    with caplog.at_level("WARNING", logger="harness.cache"):
        again, second = run()
    assert f"{stored}: checksum mismatch" in caplog.text
    assert second == {"chunks/hit": 1, "dense/corrupt": 1, "dense/miss": 1, "dense_queries/hit": 1}
    assert again == pytest.approx(clean, abs=1e-12) and clean > 0.5
