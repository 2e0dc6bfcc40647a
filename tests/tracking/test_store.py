"""Opening an MLflow store: SQLite stores are created under a lock beside the database."""

from __future__ import annotations

from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from harness.tracking.mlflow.store import open_client, sqlite_path


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

    from harness.tracking.mlflow.store import probe

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
    from harness.tracking.mlflow.store import probe

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

    from harness.tracking.mlflow import store

    uri = f"sqlite:///{tmp_path / 'mlflow.db'}"
    locks = []
    monkeypatch.setattr(store, "FileLock", lambda path: locks.append(path) or FileLock(path))
    open_client(uri)
    open_client(uri)
    assert len(locks) == 1  # the second opening of the same database takes no lock and creates nothing
    (tmp_path / "mlflow.db").unlink()
    assert len(open_client(uri).search_experiments()) == 1  # tables (and the Default experiment) made again
    assert len(locks) == 2


def _schema_and_rows(database: Path) -> tuple[list, dict]:
    """Every table's, index's and trigger's SQL, and every table's rows but the experiments'.

    A statement's lines are compared as a sorted list: MLflow's own migrations write a table's
    constraints in varying order (two stores it builds can list ``runs``' CHECKs either way round).
    """
    import sqlite3

    def lines(sql: str | None) -> tuple[str, ...]:
        return tuple(sorted(line.strip().rstrip(",").strip() for line in (sql or "").splitlines()))

    with sqlite3.connect(database) as connection:
        schema = sorted((kind, name, table, lines(sql)) for kind, name, table, sql
                        in connection.execute("SELECT type, name, tbl_name, sql FROM sqlite_master"))
        tables = [name for kind, name, _, _ in schema if kind == "table" and name != "experiments"]
        rows = {name: sorted(map(repr, connection.execute(f'SELECT * FROM "{name}"'))) for name in tables}
    return schema, rows


def test_a_new_store_copied_from_the_machine_cache_equals_one_mlflow_builds(tmp_path, monkeypatch):
    import mlflow.store.db.utils as mlflow_db

    built = []
    initialize = mlflow_db._initialize_tables
    monkeypatch.setattr(mlflow_db, "_initialize_tables", lambda engine: built.append(engine) or initialize(engine))
    monkeypatch.chdir(tmp_path)  # MLflow's default artifact root is ./mlruns
    monkeypatch.setenv("HARNESS_MODEL_CACHE", str(tmp_path / "machine"))
    copies = [tmp_path / "a" / "mlflow.db", tmp_path / "b" / "mlflow.db"]
    clients = [open_client(f"sqlite:///{database}") for database in copies]
    assert len(built) == 1  # the empty store, built by MLflow once; both stores are copies of it
    monkeypatch.setenv("HARNESS_MODEL_CACHE", "off")
    mlflow_built = tmp_path / "c" / "mlflow.db"
    clients.append(open_client(f"sqlite:///{mlflow_built}"))
    assert len(built) == 2  # without a machine cache, MLflow builds the store's tables itself
    assert _schema_and_rows(copies[0]) == _schema_and_rows(mlflow_built) == _schema_and_rows(copies[1])
    for client in clients:
        (default,) = client.search_experiments()
        assert (default.experiment_id, default.name) == ("0", "Default")
        run = client.create_run(client.create_experiment("e")).info.run_id  # the copy is a working store
        client.log_metric(run, "m", 1.0)
        assert client.get_run(run).data.metrics == {"m": 1.0}
    assert not list(tmp_path.glob("*/.mlflow.db.partial"))


def test_a_cached_empty_store_that_does_not_verify_is_rebuilt_not_copied(tmp_path, monkeypatch, caplog):
    from harness.tracking.mlflow import store

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HARNESS_MODEL_CACHE", str(tmp_path / "machine"))
    open_client(f"sqlite:///{tmp_path / 'first.db'}")
    (entry,) = (tmp_path / "machine").glob(f"v2/{store.EMPTY_STORE}/*/mlflow.db")
    entry.write_bytes(b"SQLite format 3\x00 but not the file that was checksummed")
    open_client(f"sqlite:///{tmp_path / 'second.db'}")
    assert "is corrupt" in caplog.text and str(entry.parent) in caplog.text
    assert _schema_and_rows(tmp_path / "second.db") == _schema_and_rows(tmp_path / "first.db")
    assert entry.read_bytes().startswith(b"SQLite format 3\x00") and "checksummed" not in entry.read_text(errors="replace")


def test_a_machine_cache_that_cannot_be_written_leaves_the_new_store_to_mlflow(tmp_path, monkeypatch, caplog):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "not-a-folder").write_text("a file where the cache folder would be")
    monkeypatch.setenv("HARNESS_MODEL_CACHE", str(tmp_path / "not-a-folder"))
    assert len(open_client(f"sqlite:///{tmp_path / 'mlflow.db'}").search_experiments()) == 1
    assert "MLflow builds the new store" in caplog.text and "not-a-folder" in caplog.text
    assert _schema_and_rows(tmp_path / "mlflow.db")[1]["alembic_version"]  # at MLflow's current schema
    assert not (tmp_path / ".mlflow.db.partial").exists()
