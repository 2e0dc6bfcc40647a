"""Opening an MLflow store so that processes starting together cannot race on creating it.

MLflow creates (or upgrades) a SQLite store's tables on first use; two processes doing it at once
fail with ``table logged_models already exists``. The first use therefore happens under a file lock
beside the database (``mlflow.db.lock``); other stores are opened as they are.

A new SQLite store is a copy of an empty one: MLflow builds its tables by running every schema
migration it ships (about 1.5 s of CPU per store: ``benchmarks/new_store.py``), the same result
each time for one MLflow version. The empty store is built by MLflow once per machine and MLflow
version and kept as a checksummed entry of the machine's cache (``$HARNESS_MODEL_CACHE``, see
:mod:`harness.gguf_cache`; ``off``, or a cache that cannot be written, lets MLflow build every
store). An entry that does not verify is rebuilt, never copied. MLflow then opens the copy as any
store of its current schema and adds its Default experiment.

A tracking server (``http://...``) is probed before a run or sweep starts: unreachable, MLflow's own
retries would spend minutes per request before failing.
"""

from __future__ import annotations

import contextlib
import logging
import os
import shutil
import tempfile
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

from filelock import FileLock

log = logging.getLogger(__name__)

_SQLITE = "sqlite:///"


def sqlite_path(tracking_uri: str) -> Path | None:
    """The database file of a ``sqlite:///`` URI (relative to the working folder), else None.

    SQLite's own URI form is understood too: ``sqlite:///file:PATH?mode=ro&uri=true`` opens PATH
    read-only.
    """
    if not tracking_uri.startswith(_SQLITE):
        return None
    path = tracking_uri[len(_SQLITE):].split("?", 1)[0]
    if path.startswith("file:") and "uri=true" in tracking_uri:
        path = path[len("file:"):]
    return Path(path) if path and path != ":memory:" else None


def open_client(tracking_uri: str):
    """An MlflowClient whose store exists and is at MLflow's current schema."""
    os.environ.setdefault("MLFLOW_ENABLE_ARTIFACTS_PROGRESS_BAR", "false")
    from mlflow.tracking import MlflowClient

    database = sqlite_path(tracking_uri)
    if database is None:
        return MlflowClient(tracking_uri=tracking_uri)
    opened = str(database.resolve())
    if opened in _SQLITE_READY and database.exists():  # a sweep opens its store ~20 times
        return MlflowClient(tracking_uri=tracking_uri)
    database.parent.mkdir(parents=True, exist_ok=True)
    with FileLock(f"{database}.lock"):
        if not database.exists():
            _copy_empty_store(database)
        client = MlflowClient(tracking_uri=tracking_uri)
        client.search_experiments(max_results=1)  # creates or upgrades the tables
    _SQLITE_READY.add(opened)
    return client


def store_lock(tracking_uri: str):
    """A lock that makes one block at a time, across the processes of this machine, write to the
    ``sqlite:///`` store of ``tracking_uri`` (the file lock that guards its creation); for any other
    store, no lock."""
    database = sqlite_path(tracking_uri)
    return FileLock(f"{database}.lock") if database is not None else contextlib.nullcontext()


# SQLite databases whose tables this process has created or checked: opening them again needs no lock.
_SQLITE_READY: set[str] = set()

EMPTY_STORE = "mlflow-empty-sqlite-store"


def _copy_empty_store(database: Path) -> None:
    """Writes an empty store of MLflow's current schema at ``database`` (absent), from the machine
    cache; without one (``$HARNESS_MODEL_CACHE=off``, or a cache that cannot be written) nothing is
    written and MLflow builds the store itself."""
    import mlflow

    from harness.cache import Codec, DiskCache, content_key
    from harness.gguf_cache import cache_root

    root = cache_root()
    if root is None:
        return
    codec = Codec(lambda built, folder: shutil.copyfile(built, folder / "mlflow.db"), lambda folder: folder / "mlflow.db")
    partial = database.with_name(f".{database.name}.partial")
    try:
        with tempfile.TemporaryDirectory(prefix="harness-empty-store-") as scratch:
            entry = DiskCache(root).get_or_build(EMPTY_STORE, content_key(mlflow.__version__),
                                                 lambda: _empty_store(Path(scratch) / "mlflow.db"), codec)
            shutil.copyfile(entry, partial)
        os.replace(partial, database)  # a killed copy never leaves a half store where MLflow looks
    except (OSError, ImportError) as err:  # ImportError: a later MLflow without the function used below
        partial.unlink(missing_ok=True)
        log.warning("MLflow builds the new store %s itself: no empty store from the cache %s (%s: %s)",
                    database, root, type(err).__name__, err)


def _empty_store(path: Path) -> Path:
    """An SQLite store with MLflow's tables, migrated by MLflow itself, and nothing else in it."""
    import sqlalchemy

    from harness.tracking.mlflow.compat import initialize_tables

    engine = sqlalchemy.create_engine(f"sqlite:///{path}")
    try:
        initialize_tables(engine)
    finally:
        engine.dispose()
    return path


# Lines of an SQLAlchemy error's message that say nothing about why (MLflow repeats them in its own).
_NOISE = ("(raised as a result of", "[SQL:", "[parameters:", "(Background on this error")


def one_line(err: BaseException) -> str:
    """Why a store call failed, in one line: a database error's reason without its SQL and parameters.

    >>> one_line(RuntimeError("(raised as a result of Query-invoked autoflush)\\n(sqlite3.OperationalError) "
    ...                       "attempt to write a readonly database\\n[SQL: INSERT INTO runs ...]"))
    '(sqlite3.OperationalError) attempt to write a readonly database'
    """
    lines = [line.strip() for line in str(err).splitlines() if line.strip()]
    meaningful = [line for line in lines if not line.startswith(_NOISE)]
    return (meaningful or lines or [type(err).__name__])[0][:300]


def quiet_database_errors() -> None:
    """MLflow logs a database error's full traceback (with its SQL) before raising it: about 90
    console lines a call. The harness reports each failed job in one line and keeps the traceback
    in the job's log, so MLflow's record is dropped."""
    logger = logging.getLogger("mlflow.store.db.utils")
    if not any(isinstance(f, _DatabaseErrorFilter) for f in logger.filters):
        logger.addFilter(_DatabaseErrorFilter())


class _DatabaseErrorFilter(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        return not str(record.msg).startswith("SQLAlchemy database error")


def is_server(tracking_uri: str) -> bool:
    return tracking_uri.startswith(("http://", "https://"))


def shown(tracking_uri: str) -> str:
    """The URI without a user or password, for messages."""
    parts = urlsplit(tracking_uri)
    if not parts.password and not parts.username:
        return tracking_uri
    return urlunsplit(parts._replace(netloc=parts.hostname + (f":{parts.port}" if parts.port else "")))


def limit_http_retries(max_retries: int, backoff_factor: int, timeout: int) -> None:
    """Sets MLflow's HTTP retry and timeout settings unless the environment already sets them."""
    os.environ.setdefault("MLFLOW_HTTP_REQUEST_MAX_RETRIES", str(max_retries))
    os.environ.setdefault("MLFLOW_HTTP_REQUEST_BACKOFF_FACTOR", str(backoff_factor))
    os.environ.setdefault("MLFLOW_HTTP_REQUEST_TIMEOUT", str(timeout))


def probe(tracking_uri: str, timeout: float) -> None:
    """Raises ConnectionError naming the URI if a tracking server does not answer within ``timeout``
    seconds. Any HTTP answer counts as reachable (a proxy in front may not serve ``/health``)."""
    if not is_server(tracking_uri):
        return
    import requests

    try:
        requests.get(tracking_uri.rstrip("/") + "/health", timeout=timeout)
    except requests.RequestException as err:
        reason = "no answer" if isinstance(err, requests.Timeout) else "connection failed"
        # Not chained: the underlying error repeats the URI with any credentials in it.
        raise ConnectionError(f"tracking server {shown(tracking_uri)} unreachable ({reason} within "
                              f"{timeout:g} s); start it or choose another tracking.tracking_uri") from None
