"""Tests for harness.cache: content keys, round trips, corrupt entries and concurrent writers."""

from __future__ import annotations

import hashlib
import io
import json
import logging
import multiprocessing
import pickle
from pathlib import Path

import numpy as np
import pytest

from harness.cache import ARRAY, Codec, DiskCache, arrays_codec, content_key, write_checksums

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


# --- round trips --------------------------------------------------------------------------------


def test_json_round_trip_with_checksums(tmp_path):
    cache = DiskCache(tmp_path)
    value = {"chunks": [["d1#0", 0, 10]], "score": 0.5}
    calls = []

    def compute():
        calls.append(1)
        return value

    assert cache.get_or_build("chunks", "k1", compute) == value
    assert cache.get_or_build("chunks", "k1", compute) == value
    assert len(calls) == 1
    assert cache.stats == {"chunks/miss": 1, "chunks/hit": 1}
    entry = tmp_path / "v2" / "chunks" / "k1"
    assert entry == cache.entry("chunks", "k1")
    assert sorted(p.name for p in entry.iterdir()) == ["SHA256SUMS", "value.json"]
    assert json.loads((entry / "value.json").read_text()) == value
    digest = hashlib.sha256((entry / "value.json").read_bytes()).hexdigest()
    assert (entry / "SHA256SUMS").read_text() == f"{digest}  value.json\n"
    # A fresh cache object on the same folder reads the stored entry.
    again = DiskCache(tmp_path)
    assert again.get_or_build("chunks", "k1", lambda: pytest.fail("should not recompute")) == value
    assert again.stats == {"chunks/hit": 1}
    # Other keys and namespaces are separate entries.
    assert cache.get_or_build("chunks", "k2", lambda: 2) == 2
    assert cache.get_or_build("other", "k1", lambda: 3) == 3
    assert sorted(p.name for p in (tmp_path / "v2").iterdir()) == ["chunks", "other"]


def test_array_round_trip_keeps_dtype_and_values(tmp_path):
    cache = DiskCache(tmp_path)
    array = np.arange(12, dtype=np.float32).reshape(3, 4) / 7
    cache.put("dense", "k", array, ARRAY)
    loaded = DiskCache(tmp_path).get("dense", "k", ARRAY)
    assert loaded.dtype == np.float32 and np.array_equal(loaded, array)


def test_arrays_codec_stores_named_arrays(tmp_path):
    codec = arrays_codec(lambda pair: {"ids": pair[0], "vectors": pair[1]}, lambda a: (a["ids"], a["vectors"]))
    cache = DiskCache(tmp_path)
    cache.put("emb", "k", (np.array([101, 7, 102]), np.eye(3)), codec)
    assert sorted(p.name for p in cache.entry("emb", "k").iterdir()) == ["SHA256SUMS", "ids.npy", "vectors.npy"]
    ids, vectors = cache.get("emb", "k", codec)
    assert ids.tolist() == [101, 7, 102] and np.array_equal(vectors, np.eye(3))


def test_leaves_no_staging_files(tmp_path):
    cache = DiskCache(tmp_path)
    for key in ("a", "b", "c"):
        cache.get_or_build("ns", key, lambda key=key: key * 3)
    assert sorted(p.name for p in (tmp_path / "v2" / "ns").iterdir()) == ["a", "b", "c"]


def test_disabled_cache_recomputes_and_writes_nothing(tmp_path):
    cache = DiskCache(tmp_path / "cache", enabled=False)
    calls = []
    for _ in range(3):
        assert cache.get_or_build("ns", "k", lambda: calls.append(1) or "v") == "v"
    assert len(calls) == 3
    assert cache.stats == {"ns/miss": 3}
    assert not cache.contains("ns", "k")
    assert not (tmp_path / "cache").exists()


def test_failed_compute_stores_nothing(tmp_path):
    cache = DiskCache(tmp_path)

    def boom():
        raise RuntimeError("no")

    with pytest.raises(RuntimeError):
        cache.get_or_build("ns", "k", boom)
    assert not cache.contains("ns", "k")
    assert cache.get_or_build("ns", "k", lambda: "ok") == "ok"


def test_failed_save_cleans_up_staging(tmp_path):
    cache = DiskCache(tmp_path)

    def bad_save(value, folder):
        (folder / "part").write_text("partial")
        raise OSError("disk full")

    with pytest.raises(OSError):
        cache.get_or_build("ns", "k", lambda: 1, Codec(bad_save, lambda folder: 1))
    assert list((tmp_path / "v2" / "ns").iterdir()) == []


def test_put_overwrites_an_existing_entry(tmp_path):
    cache = DiskCache(tmp_path)
    cache.put("judgements", "k", {"score": 8})
    cache.put("judgements", "k", {"score": 3})  # judge.cache=refresh
    assert DiskCache(tmp_path).get("judgements", "k") == {"score": 3}
    assert sorted(p.name for p in (tmp_path / "v2" / "judgements").iterdir()) == ["k"]


# --- an entry is never trusted unless its checksums hold -----------------------------------------


def _tamper(cache: DiskCache, namespace: str, key: str, name: str, data: bytes, resum: bool = False) -> Path:
    entry = cache.entry(namespace, key)
    (entry / name).write_bytes(data)
    if resum:  # an attacker who also rewrites the checksums
        (entry / "SHA256SUMS").unlink()
        write_checksums(entry)
    return entry / name


@pytest.mark.parametrize("damage", ["edit", "truncate", "extra file", "missing file", "no checksums"])
def test_damaged_entry_is_a_warning_a_count_and_a_recomputation(tmp_path, caplog, damage):
    cache = DiskCache(tmp_path)
    cache.put("ns", "k", [1, 2, 3])
    entry = cache.entry("ns", "k")
    named = entry / "value.json"
    if damage == "edit":
        named.write_text("[1, 2, 4]")
    elif damage == "truncate":
        named.write_text("[1, 2")
    elif damage == "extra file":
        named = entry / "planted.npy"
        named.write_bytes(b"x")
    elif damage == "missing file":
        named.unlink()
    else:
        named = entry / "SHA256SUMS"
        named.unlink()
    with caplog.at_level(logging.WARNING, logger="harness.cache"):
        assert cache.get_or_build("ns", "k", lambda: [1, 2, 3]) == [1, 2, 3]
    assert cache.stats == {"ns/corrupt": 1, "ns/miss": 1}
    assert str(named) in caplog.text and "recomputing" in caplog.text
    # The recomputed value replaced the damaged entry.
    fresh = DiskCache(tmp_path)
    assert fresh.get_or_build("ns", "k", lambda: pytest.fail("entry was not replaced")) == [1, 2, 3]
    assert fresh.stats == {"ns/hit": 1}


PAYLOAD = "import pathlib; pathlib.Path({marker!r}).write_text('pwned')"


class _Exploit:
    """Unpickling this runs ``exec`` of the payload: it would create the marker file."""

    def __init__(self, marker: Path) -> None:
        self.marker = str(marker)

    def __reduce__(self):
        return (exec, (PAYLOAD.format(marker=self.marker),))


@pytest.mark.parametrize("resum", [False, True], ids=["plain", "checksums rewritten"])
def test_crafted_pickle_entry_is_never_executed(tmp_path, resum):
    marker = tmp_path / "pwned"
    cache = DiskCache(tmp_path / "cache")
    # A pickle written over a JSON entry, and an object .npy (numpy pickles its items) over an array entry.
    cache.put("generations", "k", {"text": "fine"})
    _tamper(cache, "generations", "k", "value.json", pickle.dumps(_Exploit(marker)), resum)
    cache.put("dense", "k", np.ones((2, 2), dtype=np.float32), ARRAY)
    crafted = io.BytesIO()
    np.save(crafted, np.array([_Exploit(marker)], dtype=object), allow_pickle=True)
    _tamper(cache, "dense", "k", "array.npy", crafted.getvalue(), resum)

    assert cache.get("generations", "k") is None
    assert cache.get("dense", "k", ARRAY) is None
    assert not marker.exists()
    assert cache.stats == {"generations/corrupt": 1, "generations/miss": 1, "dense/corrupt": 1, "dense/miss": 1}
    # The exploit is real: unpickling it does create the file.
    pickle.loads(pickle.dumps(_Exploit(marker)))
    assert marker.read_text() == "pwned"


def test_no_pickle_in_the_package():
    """Nothing read from disk is unpickled unless it proves it was written by this user. Two
    exceptions: the harness launcher and its workers (harness/workers/process.py, loop.py) pickle
    the messages they send each other over the pipe of a process the launcher started, as Hydra's
    joblib launcher does with its workers, and the work a worker's job hands back to the sweep's
    process with its answer (harness/tracking/sweep/handoff.py: pickled in the worker, unpickled in
    the launcher that started it); and Hydra's compositions kept between runs
    (harness/config/stored.py) are unpickled only once their HMAC verifies under a key only this
    user can read (tests/config/test_stored.py checks that an entry that does not verify is
    never unpickled)."""
    package = Path(__file__).resolve().parents[1] / "harness"
    inter_process = {package / "workers" / "loop.py", package / "workers" / "process.py",
                     package / "tracking" / "sweep" / "handoff.py", package / "config" / "stored.py"}
    offenders = [str(path) for path in package.rglob("*.py") if path not in inter_process
                 and ("import pickle" in path.read_text() or "allow_pickle=True" in path.read_text())]
    assert offenders == []


# --- concurrent writers -------------------------------------------------------------------------

VALUE = {"payload": list(range(1000)), "text": "x" * 10_000}


def _slow_compute(barrier) -> dict:
    # Both processes have missed before either writes.
    barrier.wait(timeout=30)
    return VALUE


def _writer(root: str, barrier) -> None:
    cache = DiskCache(root)
    value = cache.get_or_build("shared", "same-key", lambda: _slow_compute(barrier))
    assert value == VALUE
    assert cache.stats == {"shared/miss": 1}


def test_concurrent_writers_leave_one_readable_entry(tmp_path):
    context = multiprocessing.get_context("spawn")
    barrier = context.Barrier(2)
    workers = [context.Process(target=_writer, args=(str(tmp_path), barrier)) for _ in range(2)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=60)
    assert [w.exitcode for w in workers] == [0, 0]
    # Exactly the entry, no staging leftovers.
    assert [p.name for p in (tmp_path / "v2" / "shared").iterdir()] == ["same-key"]
    cache = DiskCache(tmp_path)
    assert cache.get_or_build("shared", "same-key", lambda: pytest.fail("entry unreadable")) == VALUE
    assert cache.stats == {"shared/hit": 1}
