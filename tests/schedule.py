"""The order of the tests under ``--dist worksteal``: each worker opens with its share of the slow ones.

pytest-xdist's work stealing hands worker i the i-th contiguous slice of the collected tests and
lets an idle worker take the last half of the longest queue. In collection order the end-to-end
files sit together in one slice: one worker runs most of them while the others finish their unit
tests and steal from it, and the longest tests end the session alone (on 2 cores the last one ran
22 s by itself). Here the tests measured slow (``tests/durations.json``: wall seconds of the tests
that took a second or more, written by ``python tests/cpu_profile.py FOLDER --durations``) are dealt
out by file, longest first, to the slice with the least so far; each slice opens with its share
and is filled up to the size xdist gives it with the other tests in collection order, so what
thieves take from the end of a queue is quick tests. The Ray tests share a lock (one cluster at a
time, tests/conftest.py) and are dealt as one. Only the order changes: a file's other tests keep
theirs, and a test missing from the file counts as quick.
"""

from __future__ import annotations

import json
from pathlib import Path

DURATIONS = Path(__file__).with_name("durations.json")
# A file (or the Ray tests) whose measured tests take this long is dealt out.
DEALT_FROM_S = 10.0
RAY = "<tests on the local Ray cluster>"


def pytest_collection_modifyitems(session, config, items) -> None:
    workers = getattr(config, "workerinput", {}).get("workercount", 0)
    if workers > 1 and config.getoption("dist", "no") == "worksteal" and DURATIONS.is_file():
        items[:] = ordered(items, workers, json.loads(DURATIONS.read_text()))


def slices(count: int, workers: int) -> list[int]:
    """How many of ``count`` tests each worker is handed first (xdist's WorkStealingScheduling)."""
    sizes = []
    for i in range(workers):
        sizes.append(count // (workers - i))
        count -= sizes[-1]
    return sizes


def ordered(items: list, workers: int, seconds: dict[str, float]) -> list:
    groups: dict[str, list] = {}
    for item in items:
        ray = "one_ray_cluster_at_a_time" in getattr(item, "fixturenames", ())
        groups.setdefault(RAY if ray else item.nodeid.split("::")[0], []).append(item)
    weight = {key: sum(seconds.get(item.nodeid, 0.0) for item in group) for key, group in groups.items()}
    dealt = sorted((key for key in groups if weight[key] >= DEALT_FROM_S), key=lambda key: -weight[key])
    sizes = slices(len(items), workers)
    heads: list[list] = [[] for _ in sizes]
    loads = [0.0] * len(sizes)
    for key in dealt:
        room = [i for i in range(len(sizes)) if len(heads[i]) + len(groups[key]) <= sizes[i]]
        if not room:
            continue  # too many tests for any slice's room: left in collection order
        best = min(room, key=lambda i: loads[i])
        heads[best].extend(groups[key])
        loads[best] += weight[key]
    placed = {id(item) for head in heads for item in head}
    rest = iter([item for item in items if id(item) not in placed])
    order = []
    for head, size in zip(heads, sizes):
        order.extend(head)
        order.extend(next(rest) for _ in range(size - len(head)))
    order.extend(rest)
    return order
