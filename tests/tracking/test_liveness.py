"""Telling a run left RUNNING by a dead process from one whose process still runs."""

from __future__ import annotations

import subprocess
import sys

from harness.tracking.sweep.liveness import HOST_TAG, PID_TAG, STARTED_TAG, owner_alive, process_tags


def test_this_process_is_alive():
    assert owner_alive(process_tags()) is True


def test_an_ended_process_is_dead():
    ended = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    tags = {**process_tags(), PID_TAG: ended.stdout.strip()}
    assert owner_alive(tags) is False


def test_a_recycled_pid_with_another_start_time_is_dead():
    tags = process_tags()
    tags[STARTED_TAG] = str(float(tags[STARTED_TAG]) - 3600)
    assert owner_alive(tags) is False


def test_another_host_or_no_tags_cannot_be_told():
    assert owner_alive({**process_tags(), HOST_TAG: "elsewhere.example"}) is None
    assert owner_alive({}) is None
