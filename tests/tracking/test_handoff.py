"""Work a harness launcher's worker leaves to the sweep's process (harness/tracking/sweep/handoff.py):
left only where a worker accepts it, run in order by the sweep's process, and a piece that cannot
be pickled done by the caller instead; one that fails to run is a line for the sweep's end report."""

from __future__ import annotations

import threading

import pytest

from harness.tracking.sweep import handoff

DONE: list[tuple] = []


def record(*args) -> None:
    DONE.append(args)


def refuse(reason: str) -> None:
    raise RuntimeError(reason)


@pytest.fixture
def worker(monkeypatch):
    """This test process as a worker that accepts hand-offs; nothing left behind afterwards."""
    monkeypatch.setattr(handoff, "_LEFT", None)
    DONE.clear()
    handoff.accept()
    yield
    handoff.taken()
    handoff.failures()


def test_nothing_is_left_where_no_worker_accepts_it(monkeypatch):
    monkeypatch.setattr(handoff, "_LEFT", None)
    assert handoff.leave(record, 1) is False and handoff.taken() == []


def test_left_work_goes_with_the_answer_once_and_runs_in_order_in_the_sweeps_process(worker):
    assert handoff.leave(record, "a", 1) and handoff.leave(record, "b", 2)
    left = handoff.taken()
    assert len(left) == 2 and all(isinstance(blob, bytes) for blob in left)
    assert handoff.taken() == []  # the next job's answer carries only its own
    assert DONE == []  # nothing ran in the worker
    handoff.run(left)
    assert DONE == [("a", 1), ("b", 2)] and handoff.failures() == []


def test_work_that_cannot_be_pickled_is_not_left_so_the_caller_does_it(worker):
    assert handoff.leave(record, threading.Lock()) is False
    assert handoff.taken() == []


def test_left_work_that_fails_is_a_line_for_the_end_report_and_the_rest_still_runs(worker):
    handoff.leave(refuse, "the store is gone")
    handoff.leave(record, "after")
    handoff.run(handoff.taken())
    assert DONE == [("after",)]
    assert handoff.failures() == ["NOT DONE work a job left to the sweep's process: RuntimeError('the store is gone')"]
    assert handoff.failures() == []
