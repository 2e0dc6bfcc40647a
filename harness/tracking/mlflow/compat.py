"""Every use of MLflow's private API, in one module, for the MLflow versions it was written for.

Where MLflow has no public way to do what the harness needs, the private call is made here and
nowhere else (a test pins :data:`WRITTEN_FOR` against the installed MLflow and fails on another
version, so an upgrade reviews each of these):

- :func:`initialize_tables`: MLflow's tables created and migrated on an engine of the harness's own
  (an empty store built once and copied for each new SQLite store: ``harness.tracking.mlflow.store``);
  the public way, opening a client on the URI, starts a whole tracking store (~2 s);
- :func:`dataset_entity`: the run-input entity of a dataset (``mlflow.log_input`` builds it the same
  way inside a fluent run; the harness logs through ``MlflowClient.log_inputs``, which takes the entity);
- :func:`tracing_store`: the tracking store behind MLflow's tracing client, whose ``start_trace`` and
  ``log_spans`` write a batch of finished traces at once (the public ``mlflow.start_span`` API writes
  one live trace at a time).
"""

from __future__ import annotations

# The MLflow versions these calls were written and tested for (pyproject.toml's mlflow requirement).
WRITTEN_FOR = ("3.17",)


def initialize_tables(engine) -> None:
    """Creates MLflow's tables on ``engine`` and migrates them to this MLflow's schema."""
    from mlflow.store.db.utils import _initialize_tables

    _initialize_tables(engine)


def dataset_entity(dataset):
    """The :class:`mlflow.entities.Dataset` a run input of ``dataset`` (an MLflow dataset object) holds."""
    return dataset._to_mlflow_entity()


def tracing_store(tracking_uri: str):
    """The tracking store MLflow's tracing client writes traces to, for ``tracking_uri``."""
    from mlflow.tracing.client import TracingClient

    return TracingClient(tracking_uri).store
