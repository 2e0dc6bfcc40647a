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
