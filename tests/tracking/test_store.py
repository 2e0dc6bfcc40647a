"""Opening an MLflow store: SQLite stores are created under a lock beside the database."""

from __future__ import annotations

from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from harness.tracking.store import open_client, sqlite_path


def test_sqlite_path_of_tracking_uris():
    assert sqlite_path("sqlite:///mlflow.db") == Path("mlflow.db")
    assert sqlite_path("sqlite:////tmp/x/mlflow.db") == Path("/tmp/x/mlflow.db")
    assert sqlite_path("sqlite:///:memory:") is None
    assert sqlite_path("http://localhost:5000") is None
    assert sqlite_path("postgresql://u@localhost/db") is None


def _experiment_count(uri: str) -> int:
    return len(open_client(uri).search_experiments())


def test_processes_opening_a_fresh_store_together_all_succeed(tmp_path):
    uri = f"sqlite:///{tmp_path / 'new' / 'mlflow.db'}"
    with ProcessPoolExecutor(max_workers=3) as pool:
        counts = list(pool.map(_experiment_count, [uri] * 3))
    assert counts == [1, 1, 1]  # MLflow's Default experiment, created once
    assert (tmp_path / "new" / "mlflow.db.lock").exists()


def test_probe_fails_fast_naming_the_server_without_credentials():
    import socket
    import time

    import pytest

    from harness.tracking.store import probe

    with socket.socket() as silent:  # accepts connections, never answers
        silent.bind(("127.0.0.1", 0))
        silent.listen()
        port = silent.getsockname()[1]
        start = time.monotonic()
        with pytest.raises(ConnectionError) as caught:
            probe(f"http://alice:s3cret@127.0.0.1:{port}", timeout=0.5)
        assert time.monotonic() - start < 5
    message = str(caught.value)
    assert f"http://127.0.0.1:{port}" in message and "no answer within 0.5 s" in message
    assert "s3cret" not in message and "alice" not in message and caught.value.__cause__ is None


def test_probe_accepts_any_http_answer_and_ignores_local_stores(httpserver):
    from harness.tracking.store import probe

    httpserver.expect_request("/health").respond_with_data("nope", status=404)
    probe(httpserver.url_for("/").rstrip("/"), timeout=5)
    probe("sqlite:///does/not/matter.db", timeout=0.1)


def test_the_configured_http_settings_are_ones_mlflow_reads(compose, monkeypatch):
    from hydra.utils import instantiate
    from mlflow import environment_variables as env

    names = ("MLFLOW_HTTP_REQUEST_MAX_RETRIES", "MLFLOW_HTTP_REQUEST_BACKOFF_FACTOR", "MLFLOW_HTTP_REQUEST_TIMEOUT")
    for name in names:
        monkeypatch.delenv(name, raising=False)
    cfg = compose(["tracking.tracking_uri=http://127.0.0.1:1"])
    instantiate(cfg.tracking)
    server = cfg.tracking.server
    assert [getattr(env, name).get() for name in names] == [server.max_retries, server.backoff_factor, server.timeout]


def test_a_store_is_set_up_once_per_process_and_again_if_its_file_is_gone(tmp_path, monkeypatch):
    from filelock import FileLock

    from harness.tracking import store

    uri = f"sqlite:///{tmp_path / 'mlflow.db'}"
    locks = []
    monkeypatch.setattr(store, "FileLock", lambda path: locks.append(path) or FileLock(path))
    open_client(uri)
    open_client(uri)
    assert len(locks) == 1  # the second opening of the same database takes no lock and creates nothing
    (tmp_path / "mlflow.db").unlink()
    assert len(open_client(uri).search_experiments()) == 1  # tables (and the Default experiment) made again
    assert len(locks) == 2
