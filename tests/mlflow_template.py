"""A new MLflow SQLite store in the tests: a copy of one that MLflow itself initialised.

When a store's database lacks its tables, MLflow creates them and then runs its Alembic migrations
(``mlflow.store.db.utils._initialize_tables``): 1.5 CPU s, paid by every test that logs to a new
``mlflow.db`` (most end-to-end tests, some more than once), where opening an initialised one costs
0.03 s. :func:`install` makes that step copy the tables in with SQLite's backup API from a template:
the first database this checkout's tests had MLflow initialise, kept in ``.cache/`` per MLflow
version. What a test's store holds is therefore what MLflow writes; only who wrote it differs.

Installed by ``tests/conftest.py`` (the test processes) and ``tests/forkserver.py`` (the CLI runs it
forks); a real interpreter (``HARNESS_TEST_FORK=0``, the tracking servers) takes MLflow's own way, as
does any other backend. ``HARNESS_TEST_MLFLOW_TEMPLATE=0`` turns it off.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parents[1]
SWITCH = "HARNESS_TEST_MLFLOW_TEMPLATE"


def install() -> None:
    """From now on this process initialises new SQLite stores from the template (idempotent)."""
    if os.environ.get(SWITCH) == "0":
        return
    import mlflow.store.db.utils as db_utils
    import mlflow.store.model_registry.sqlalchemy_store as registry

    real = db_utils._initialize_tables
    if getattr(real, "from_template", False):
        return

    def initialize_tables(engine) -> None:
        if engine.url.get_backend_name() != "sqlite" or engine.url.database in (None, "", ":memory:"):
            return real(engine)
        template = _template()
        if template.is_file():
            _copy(template, engine)
        else:
            real(engine)
            _publish(engine, template)

    initialize_tables.from_template = True
    # The tracking store reaches it through db_utils._safe_initialize_tables, the model registry's
    # store imported the name itself.
    db_utils._initialize_tables = registry._initialize_tables = initialize_tables


def _template() -> Path:
    import mlflow

    return PROJECT_ROOT / ".cache" / f"mlflow-store-{mlflow.__version__}.db"


def _copy(template: Path, engine) -> None:
    source = sqlite3.connect(f"file:{template}?mode=ro", uri=True)
    try:
        with engine.connect() as connection:
            source.backup(connection.connection.dbapi_connection)
    finally:
        source.close()


def _publish(engine, template: Path) -> None:
    """The database MLflow just initialised, as the template (written aside, then renamed: a process
    that reads it meanwhile sees all of it or none)."""
    template.parent.mkdir(parents=True, exist_ok=True)
    partial = template.with_name(f"{template.name}.{os.getpid()}.partial")
    target = sqlite3.connect(partial)
    try:
        with engine.connect() as connection:
            connection.connection.dbapi_connection.backup(target)
    finally:
        target.close()
    os.replace(partial, template)
