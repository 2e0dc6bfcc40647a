"""Real services for tests: PostgreSQL and an MLflow tracking server on free loopback ports.

Both run from temporary folders and are stopped (also when a test fails) by their context
managers. PostgreSQL refuses to run as root, so under root its commands run as the ``postgres``
user, in a folder that user owns.
"""

from __future__ import annotations

import os
import pwd
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
import requests

from harness.serving import answering

MLFLOW = Path(sys.executable).parent / "mlflow"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _postgres_user() -> tuple[list[str], int | None]:
    """The command prefix and uid PostgreSQL runs under; skips when it cannot run at all."""
    missing = [tool for tool in ("initdb", "pg_ctl", "postgres") if shutil.which(tool) is None]
    if missing:
        pytest.skip(f"PostgreSQL is not installed ({', '.join(missing)} not on PATH)")
    if os.geteuid() != 0:
        return [], None
    try:
        uid = pwd.getpwnam("postgres").pw_uid
    except KeyError:
        pytest.skip("running as root and there is no 'postgres' user for initdb")
    return ["runuser", "-u", "postgres", "--"], uid


@contextmanager
def postgres() -> Iterator[str]:
    """A fresh PostgreSQL cluster; yields the URI of an empty database, written as MLflow's docs
    write it (``postgresql://``: SQLAlchemy's default driver, psycopg 3)."""
    prefix, uid = _postgres_user()
    # Its own folder under /tmp (pytest's tmp_path is private to root) with a short socket path.
    root = Path(tempfile.mkdtemp(prefix="pg"))
    if uid is not None:
        os.chown(root, uid, -1)
    data, port = root / "data", free_port()
    run = lambda *args: subprocess.run([*prefix, *args], check=True, capture_output=True, text=True, timeout=120)  # noqa: E731
    try:
        run("initdb", "-D", str(data), "-U", "postgres", "-A", "trust", "--no-sync", "-E", "UTF8")
        run("pg_ctl", "-D", str(data), "-l", str(root / "server.log"), "-w", "-t", "60",
            "-o", f"-p {port} -k {root} -c listen_addresses=127.0.0.1 -c fsync=off", "start")
        try:
            run("createdb", "-h", "127.0.0.1", "-p", str(port), "-U", "postgres", "mlflow")
            yield f"postgresql://postgres@127.0.0.1:{port}/mlflow"
        finally:
            subprocess.run([*prefix, "pg_ctl", "-D", str(data), "-m", "immediate", "-w", "stop"],
                           capture_output=True, timeout=60)
    finally:
        shutil.rmtree(root, ignore_errors=True)


@contextmanager
def mlflow_server(backend_store_uri: str, artifacts: Path, port: int | None = None) -> Iterator[str]:
    """``mlflow server`` with artifacts proxied to ``artifacts``; yields its ``http://`` URI."""
    server = start_mlflow_server(backend_store_uri, artifacts, port)
    try:
        yield server.uri
    finally:
        server.stop()


class MlflowServer:
    """A running ``mlflow server`` process group (the server and its workers)."""

    def __init__(self, process: subprocess.Popen, uri: str, log: Path) -> None:
        self.process, self.uri, self.log = process, uri, log

    def kill(self) -> None:
        """``kill -9`` of the server and its workers: gone mid-request, as a crashed host leaves it."""
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=30)

    def stop(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(timeout=30)


def start_mlflow_server(backend_store_uri: str, artifacts: Path, port: int | None = None,
                        timeout: float = 180) -> MlflowServer:
    port = port or free_port()
    artifacts.mkdir(parents=True, exist_ok=True)
    log = artifacts.parent / f"mlflow-server-{port}.log"
    with log.open("w") as handle:
        process = subprocess.Popen(
            [str(MLFLOW), "server", "--backend-store-uri", backend_store_uri, "--artifacts-destination",
             str(artifacts), "--host", "127.0.0.1", "--port", str(port), "--workers", "1"],
            stdout=handle, stderr=subprocess.STDOUT, start_new_session=True, cwd=artifacts.parent)
    server = MlflowServer(process, f"http://127.0.0.1:{port}", log)
    if answering(process, log, "mlflow server", timeout, lambda: requests.get(f"{server.uri}/health", timeout=2).ok):
        return server
    server.stop()
    raise RuntimeError(f"mlflow server did not answer within {timeout} s:\n{log.read_text()[-3000:]}")
