"""The clean-up of a sweep's local Ray cluster, on real processes (no Ray needed), and Ray's notice filter."""

import logging
import subprocess
import sys

import psutil

from harness import ray_cluster


def _process(session: str, ignore_sigterm: bool = False, child: bool = False) -> subprocess.Popen:
    """A process naming ``session`` on its command line; with ``child``, it starts one that does not
    (as the raylet starts its agents, whose command lines Ray rewrites)."""
    code = "import signal, subprocess, sys, time\n" + \
        ("signal.signal(signal.SIGTERM, signal.SIG_IGN)\n" if ignore_sigterm else "") + \
        ("subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(120)'])\n" if child else "") + \
        "print('ready', flush=True)\ntime.sleep(120)"
    process = subprocess.Popen([sys.executable, "-c", code, f"--session-dir=/tmp/rayx/{session}"], stdout=subprocess.PIPE,
                               text=True)
    assert process.stdout.readline().strip() == "ready"
    return process


def test_every_process_of_the_session_ends_even_one_that_ignores_sigterm(monkeypatch):
    monkeypatch.setattr(ray_cluster, "TERMINATE_GRACE_S", 1.0)
    mine = [_process("session_2026-01-01_00-00-00_000001_1"), _process("session_2026-01-01_00-00-00_000001_1", True)]
    other = _process("session_2026-01-01_00-00-00_000002_2")  # another sweep's cluster: left alone
    try:
        found = ray_cluster.session_processes("/tmp/rayx/session_2026-01-01_00-00-00_000001_1")
        assert sorted(p.pid for p in found) == sorted(p.pid for p in mine)
        assert ray_cluster.end_processes(found) == 2
        # both gone, the second by SIGKILL after the grace period (psutil reaped them: no status left to read)
        assert not any(psutil.pid_exists(p.pid) for p in mine)
        assert psutil.pid_exists(other.pid) and other.poll() is None
    finally:
        for process in (*mine, other):
            process.kill()
            process.wait()


def test_nothing_to_stop_when_this_process_started_no_cluster():
    assert ray_cluster.stop_started_cluster() == 0


def test_only_rays_notice_of_its_default_authentication_is_dropped():
    def record(message: str) -> logging.LogRecord:
        return logging.makeLogRecord({"name": ray_cluster.AUTH_LOGGER, "levelno": logging.WARNING, "msg": message})

    assert not ray_cluster._drop_default_auth_notice(record(
        "Token authentication is enabled for this Ray cluster. Set RAY_AUTH_MODE=disabled to opt out."))
    assert ray_cluster._drop_default_auth_notice(record("Token authentication is disabled for this Ray cluster."))
