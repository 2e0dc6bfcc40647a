"""Opening an MLflow store so that processes starting together cannot race on creating it.

MLflow creates (or upgrades) a SQLite store's tables on first use; two processes doing it at once
fail with ``table logged_models already exists``. The first use therefore happens under a file lock
beside the database (``mlflow.db.lock``); other stores are opened as they are.
"""

from __future__ import annotations

import os
from pathlib import Path

from filelock import FileLock

_SQLITE = "sqlite:///"


def sqlite_path(tracking_uri: str) -> Path | None:
    """The database file of a ``sqlite:///`` URI (relative to the working folder), else None."""
    if not tracking_uri.startswith(_SQLITE):
        return None
    path = tracking_uri[len(_SQLITE):].split("?", 1)[0]
    return Path(path) if path and path != ":memory:" else None


def open_client(tracking_uri: str):
    """An MlflowClient whose store exists and is at MLflow's current schema."""
    os.environ.setdefault("MLFLOW_ENABLE_ARTIFACTS_PROGRESS_BAR", "false")
    from mlflow.tracking import MlflowClient

    database = sqlite_path(tracking_uri)
    if database is None:
        return MlflowClient(tracking_uri=tracking_uri)
    database.parent.mkdir(parents=True, exist_ok=True)
    with FileLock(f"{database}.lock"):
        client = MlflowClient(tracking_uri=tracking_uri)
        client.search_experiments(max_results=1)  # creates or upgrades the tables
    return client
