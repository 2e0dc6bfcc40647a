"""The bounded retry that waits out a tracking server that blinks (a fake clock: no real waiting)."""

from __future__ import annotations

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
