"""Progress of slow stages: log lines with an ETA when not on a terminal, order kept."""

from __future__ import annotations

import logging
import threading
import time

import harness.progress as progress_module
from harness.progress import map_with_progress, progress


def test_without_a_terminal_progress_is_logged_with_counts_and_eta(caplog, monkeypatch):
    monkeypatch.setattr(progress_module, "LOG_EVERY_SECONDS", 0.0)
    with caplog.at_level(logging.INFO, logger="harness.progress"):
        assert list(progress(iter("abc"), total=3, desc="generating answers")) == ["a", "b", "c"]
    lines = [r.getMessage() for r in caplog.records]
    assert lines[0] == "generating answers: 0/3 batches (0%), 00:00 elapsed, ETA ?"
    assert lines[-1].startswith("generating answers: 3/3 batches (100%)") and "ETA 00:00" in lines[-1]
    assert len(lines) == 4  # one line per step, the closing refresh not repeated


def test_a_single_step_shows_nothing(caplog):
    with caplog.at_level(logging.INFO, logger="harness.progress"):
        assert list(progress([1], total=1, desc="judging")) == [1]
    assert caplog.records == []


def test_log_lines_are_throttled(caplog):
    with caplog.at_level(logging.INFO, logger="harness.progress"):
        list(progress(range(50), total=50, desc="embedding"))  # far faster than LOG_EVERY_SECONDS
    assert len(caplog.records) == 2  # the start and the end


def test_map_with_progress_keeps_input_order_on_threads():
    threads = set()

    def slow_square(x: int) -> int:
        threads.add(threading.get_ident())
        time.sleep(0.01 * (5 - x % 5))
        return x * x

    assert map_with_progress(slow_square, list(range(10)), 4, "judging") == [x * x for x in range(10)]
    assert len(threads) > 1
    assert map_with_progress(slow_square, [3], 1, "judging") == [9]


def test_a_hand_driven_bar_logs_and_a_single_step_gets_none(caplog, monkeypatch):
    from harness.progress import progress_bar

    monkeypatch.setattr(progress_module, "LOG_EVERY_SECONDS", 0.0)
    with progress_bar(1, "generating 1 answers") as bar:
        assert bar is None
    with caplog.at_level(logging.INFO, logger="harness.progress"):
        with progress_bar(64, "generating 8 answers", unit="decoding step") as bar:
            bar.update(32)
            bar.update(32)
    lines = [r.getMessage() for r in caplog.records]
    assert lines[0].startswith("generating 8 answers: 0/64 decoding steps (0%)")
    assert lines[-1].startswith("generating 8 answers: 64/64 decoding steps (100%)")
