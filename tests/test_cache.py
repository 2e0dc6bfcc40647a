"""Tests for harness.cache: content keys, round trips, corrupt entries and concurrent writers."""

from __future__ import annotations

import multiprocessing
import pickle
from pathlib import Path

import pytest

from harness.cache import DiskCache, content_key

# --- content_key --------------------------------------------------------------------------------


def test_content_key_ignores_dict_order():
    first = content_key({"a": 1, "b": {"x": [1, 2], "y": None}}, "corpus")
    second = content_key({"b": {"y": None, "x": [1, 2]}, "a": 1}, "corpus")
    assert first == second
    assert len(first) == 64 and int(first, 16) >= 0


def test_content_key_differs_for_different_values():
    base = content_key({"k1": 1.2, "b": 0.75}, "corpus")
    assert base != content_key({"k1": 1.5, "b": 0.75}, "corpus")
    assert base != content_key({"k1": 1.2, "b": 0.75}, "other corpus")
    assert base != content_key({"k1": 1.2, "b": 0.75, "extra": True}, "corpus")
    assert base != content_key("corpus", {"k1": 1.2, "b": 0.75})  # order of the parts matters
    assert content_key(1) != content_key("1")
    assert content_key([1, 2]) != content_key([2, 1])


def test_content_key_is_stable_across_calls_and_handles_paths():
    assert content_key(Path("/a/b"), {"x": 1}) == content_key(Path("/a/b"), {"x": 1})
    assert content_key(Path("/a/b")) == content_key("/a/b")  # non-JSON values go through str()


# --- get_or_compute -----------------------------------------------------------------------------


def test_get_or_compute_round_trip(tmp_path):
    cache = DiskCache(tmp_path)
    value = {"chunks": [("d1#0", 0, 10)], "score": 0.5}
    calls = []

    def compute():
        calls.append(1)
        return value

    assert cache.get_or_compute("chunks", "k1", compute) == value
    assert cache.get_or_compute("chunks", "k1", compute) == value
    assert len(calls) == 1
    assert cache.stats == {"chunks/miss": 1, "chunks/hit": 1}
    entry = tmp_path / "chunks" / "k1"
    assert entry.is_file() and pickle.loads(entry.read_bytes()) == value
    # A fresh cache object on the same folder reads the stored entry.
    again = DiskCache(tmp_path)
    assert again.get_or_compute("chunks", "k1", lambda: pytest.fail("should not recompute")) == value
    assert again.stats == {"chunks/hit": 1}
    # Other keys and namespaces are separate entries.
    assert cache.get_or_compute("chunks", "k2", lambda: 2) == 2
    assert cache.get_or_compute("other", "k1", lambda: 3) == 3
    assert sorted(p.name for p in tmp_path.iterdir()) == ["chunks", "other"]


def test_get_or_compute_leaves_no_staging_files(tmp_path):
    cache = DiskCache(tmp_path)
    for key in ("a", "b", "c"):
        cache.get_or_compute("ns", key, lambda key=key: key * 3)
    assert sorted(p.name for p in (tmp_path / "ns").iterdir()) == ["a", "b", "c"]


def test_disabled_cache_recomputes_and_writes_nothing(tmp_path):
    cache = DiskCache(tmp_path / "cache", enabled=False)
    calls = []
    for _ in range(3):
        assert cache.get_or_compute("ns", "k", lambda: calls.append(1) or "v") == "v"
    assert len(calls) == 3
    assert cache.stats == {"ns/miss": 3}
    assert not (tmp_path / "cache").exists()


def test_corrupt_entry_is_recomputed_and_replaced(tmp_path):
    cache = DiskCache(tmp_path)
    cache.get_or_compute("ns", "k", lambda: [1, 2, 3])
    (tmp_path / "ns" / "k").write_bytes(b"not a pickle")
    assert cache.get_or_compute("ns", "k", lambda: [1, 2, 3]) == [1, 2, 3]
    assert cache.stats == {"ns/miss": 2}
    fresh = DiskCache(tmp_path)
    assert fresh.get_or_compute("ns", "k", lambda: pytest.fail("entry was not replaced")) == [1, 2, 3]


def test_failed_compute_stores_nothing(tmp_path):
    cache = DiskCache(tmp_path)

    def boom():
        raise RuntimeError("no")

    with pytest.raises(RuntimeError):
        cache.get_or_compute("ns", "k", boom)
    assert not (tmp_path / "ns" / "k").exists()
    assert cache.get_or_compute("ns", "k", lambda: "ok") == "ok"


def test_failed_save_cleans_up_staging(tmp_path):
    cache = DiskCache(tmp_path)

    def bad_save(value, path):
        path.write_text("partial")
        raise OSError("disk full")

    with pytest.raises(OSError):
        cache.get_or_build("ns", "k", lambda: 1, save=bad_save, load=lambda p: 1, directory=False)
    assert list((tmp_path / "ns").iterdir()) == []


def test_get_or_build_directory_entry(tmp_path):
    cache = DiskCache(tmp_path)

    def save(value, folder: Path):
        folder.mkdir(exist_ok=True)
        for name, text in value.items():
            (folder / name).write_text(text)

    def load(folder: Path):
        return {p.name: p.read_text() for p in sorted(folder.iterdir())}

    value = {"a.txt": "alpha", "b.txt": "beta"}
    assert cache.get_or_build("idx", "k", lambda: value, save=save, load=load) == value
    assert cache.get_or_build("idx", "k", lambda: pytest.fail("recomputed"), save=save, load=load) == value
    assert (tmp_path / "idx" / "k").is_dir()
    assert cache.stats == {"idx/miss": 1, "idx/hit": 1}


# --- concurrent writers -------------------------------------------------------------------------

VALUE = {"payload": list(range(1000)), "text": "x" * 10_000}


def _slow_compute(barrier) -> dict:
    # Both processes have missed before either writes.
    barrier.wait(timeout=30)
    return VALUE


def _pickle_writer(root: str, barrier) -> None:
    cache = DiskCache(root)
    value = cache.get_or_compute("shared", "same-key", lambda: _slow_compute(barrier))
    assert value == VALUE
    assert cache.stats == {"shared/miss": 1}


def _save_dir(value, folder: Path) -> None:
    folder.mkdir(exist_ok=True)
    (folder / "data.pkl").write_bytes(pickle.dumps(value))


def _load_dir(folder: Path):
    return pickle.loads((folder / "data.pkl").read_bytes())


def _dir_writer(root: str, barrier) -> None:
    cache = DiskCache(root)
    value = cache.get_or_build("shared_dir", "same-key", lambda: _slow_compute(barrier),
                               save=_save_dir, load=_load_dir)
    assert value == VALUE
    assert cache.stats == {"shared_dir/miss": 1}


def _run_two(target, root: Path) -> None:
    context = multiprocessing.get_context("spawn")
    barrier = context.Barrier(2)
    workers = [context.Process(target=target, args=(str(root), barrier)) for _ in range(2)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=60)
    assert [w.exitcode for w in workers] == [0, 0]


@pytest.mark.parametrize("target, namespace", [(_pickle_writer, "shared"), (_dir_writer, "shared_dir")])
def test_concurrent_writers_leave_one_readable_entry(tmp_path, target, namespace):
    _run_two(target, tmp_path)
    # Exactly the entry, no staging leftovers.
    assert [p.name for p in (tmp_path / namespace).iterdir()] == ["same-key"]
    cache = DiskCache(tmp_path)
    if namespace == "shared":
        value = cache.get_or_compute(namespace, "same-key", lambda: pytest.fail("entry unreadable"))
    else:
        value = cache.get_or_build(namespace, "same-key", lambda: pytest.fail("entry unreadable"),
                                   save=_save_dir, load=_load_dir)
    assert value == VALUE
    assert cache.stats == {f"{namespace}/hit": 1}
