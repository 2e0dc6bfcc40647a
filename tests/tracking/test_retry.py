"""The bounded retry that waits out a tracking server that blinks (a fake clock: no real waiting)."""

from __future__ import annotations

import json

import pytest

from harness.tracking.mlflow.retry import Outage


class Server:
    """Down for ``down`` seconds of the fake clock from ``t = 0``; each call costs one second."""

    def __init__(self, down: float, error: Exception | None = None) -> None:
        self.now, self.down, self.error, self.calls, self.sleeps = 0.0, down, error, 0, []

    def call(self) -> str:
        self.calls += 1
        self.now += 1
        if self.now <= self.down:
            raise ConnectionError("refused")
        if self.error:
            raise self.error
        return "logged"

    def outage(self, seconds: float, first_wait: float = 1) -> Outage:
        return Outage(seconds, first_wait, reachable=lambda: self.now > self.down, name="http://x",
                      clock=lambda: self.now, sleep=self.sleep)

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


def test_a_blink_shorter_than_the_window_is_waited_out_with_doubling_waits():
    server = Server(down=10)
    assert server.outage(60).run(server.call, "logging") == "logged"
    # calls at t=1, 3, 6, 11 (each call 1 s, waits 1, 2, 4 s), the fourth after the server is back
    assert server.sleeps == [1, 2, 4] and server.calls == 4


def test_a_longer_outage_fails_at_the_end_of_the_window_and_later_calls_do_not_wait_again():
    server = Server(down=1000)
    outage = server.outage(20)
    with pytest.raises(ConnectionError, match=r"http://x unreachable for 20 s \(tracking.server.retry_seconds\)"):
        outage.run(server.call, "logging")
    # The first failure (t=1) opens the window until t=21; calls at t=1, 3, 6, 11, 20, 22 (each takes
    # 1 s); the wait after t=20 is cut to what is left of the window; the call at t=22 is the last.
    assert server.sleeps == [1, 2, 4, 8, 1] and server.calls == 6
    waited = len(server.sleeps)
    with pytest.raises(ConnectionError):
        outage.run(server.call, "logging the next")
    assert len(server.sleeps) == waited  # the window has run out: no more waiting


def test_an_error_while_the_server_answers_is_raised_at_once():
    server = Server(down=0, error=ValueError("INVALID_PARAMETER_VALUE"))
    with pytest.raises(ValueError, match="INVALID_PARAMETER_VALUE"):
        server.outage(60).run(server.call, "logging")
    assert server.calls == 1 and server.sleeps == []


def test_zero_seconds_turns_the_waiting_off_and_bad_settings_are_refused():
    server = Server(down=5)
    with pytest.raises(ConnectionError, match="refused"):
        server.outage(0).run(server.call, "logging")
    assert server.sleeps == []
    with pytest.raises(ValueError, match="retry_seconds"):
        Outage(-1, 1, reachable=lambda: True, name="x")
    with pytest.raises(ValueError, match="retry_wait"):
        Outage(60, 0, reachable=lambda: True, name="x")


def test_the_jobs_of_a_sweep_share_one_wait_per_outage(tmp_path):
    """Two jobs (two trackers, as in two processes) share the outage's start through the sweep folder:
    the second, after the window, asks once and moves on; a call that gets through ends the outage."""
    from harness.tracking.sweep.outage import OUTAGE_FILE, SweepOutageRecord

    server = Server(down=1000)
    first, second = (Outage(20, 1, reachable=lambda: server.now > server.down, name="http://x",
                            clock=lambda: server.now, sleep=server.sleep, record=SweepOutageRecord(tmp_path))
                     for _ in range(2))
    with pytest.raises(ConnectionError, match=r"unreachable for 20 s"):
        first.run(server.call, "logging job 1")
    assert json.loads((tmp_path / OUTAGE_FILE).read_text()) == {"http://x": 1.0}  # first seen at t=1
    waited, calls = len(server.sleeps), server.calls
    with pytest.raises(ConnectionError, match=r"http://x still unreachable \(tried once; down since 00:00:01 UTC, "
                                              r"waited for 20 s: tracking.server.retry_seconds\)"):
        second.run(server.call, "logging job 2")
    assert len(server.sleeps) == waited and server.calls == calls  # a probe, not the call (which could hang)

    server.down = server.now - 1  # back: a call gets through and ends the outage for every job
    assert second.run(server.call, "logging job 3") == "logged"
    assert not (tmp_path / OUTAGE_FILE).exists()
    server.down = server.now + 3  # a new outage gets its own wait
    assert first.run(server.call, "logging job 4") == "logged" and len(server.sleeps) > waited


def test_a_job_that_finds_the_outage_under_way_waits_only_for_the_rest_of_its_window(tmp_path):
    from harness.tracking.sweep.outage import SweepOutageRecord

    server = Server(down=1000)
    server.now = 100.0
    record = SweepOutageRecord(tmp_path)
    record.begin("http://x", 90.0)  # another job saw it 10 s ago
    outage = Outage(20, 1, reachable=lambda: False, name="http://x", clock=lambda: server.now, sleep=server.sleep,
                    record=record)
    with pytest.raises(ConnectionError, match="unreachable for 20 s"):
        outage.run(server.call, "logging")
    # calls at t=101, 103, 106, 110 (each 1 s), the last one past t=110; a window of its own would end at t=121
    assert server.sleeps == [1, 2, 4] and server.now == 111
