"""tests/schedule.py: the same tests in another order; each worker's slice opens with its share of
the slow files, the Ray tests together, every other file's tests in their own order."""

from __future__ import annotations

from types import SimpleNamespace

from tests.schedule import RAY, ordered, slices


def test_slow_files_are_dealt_to_the_slices_and_nothing_is_lost_or_reordered_within_a_file():
    names = [f"tests/f{f}.py::t{t}" for f in range(12) for t in range(10)]
    ray = {"tests/f3.py::t1", "tests/f9.py::t2"}
    items = [SimpleNamespace(nodeid=n, fixturenames=("one_ray_cluster_at_a_time",) if n in ray else ()) for n in names]
    seconds = {"tests/f1.py::t0": 100.0, "tests/f5.py::t3": 60.0, "tests/f5.py::t4": 30.0, "tests/f7.py::t9": 50.0,
               "tests/f3.py::t1": 20.0, "tests/f9.py::t2": 25.0, "tests/f0.py::t0": 5.0}
    order = ordered(items, 3, seconds)
    assert sorted(i.nodeid for i in order) == sorted(names)
    for f in set(range(12)) - {3, 9}:  # a file's tests keep their order (the Ray tests go together)
        own = [i.nodeid for i in order if i.nodeid.startswith(f"tests/f{f}.py::")]
        assert own == sorted(own, key=lambda n: int(n.rsplit("t", 1)[1]))
    assert slices(len(order), 3) == [40, 40, 40]
    parts = [order[0:40], order[40:80], order[80:120]]
    heads = [{i.nodeid.split("::")[0] for i in part[:10]} for part in parts]
    # longest first to the least loaded: f1 (100), f5 (90), then f7 (50) and the Ray tests (45)
    assert "tests/f1.py" in heads[0] and "tests/f5.py" in heads[1] and "tests/f7.py" in heads[2]
    assert [i.nodeid for i in parts[2][10:12]] == sorted(ray)  # after f7's ten, the two Ray tests together
    assert parts[0][10].nodeid == "tests/f0.py::t0"  # the rest follow in collection order
    assert RAY not in {i.nodeid for i in order}


def test_slices_are_xdists_first_hand_out():
    assert slices(10, 3) == [3, 3, 4] and sum(slices(2312, 4)) == 2312
