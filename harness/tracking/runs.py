"""Finding finished runs and their per-question tables: in MLflow, or in a local run folder.

Shared by ``harness compare`` and ``harness annotate``. A run is named by an MLflow run id, an
MLflow run name (the newest run with that name in any experiment), or, for
:func:`open_run_table`, a folder holding ``per_question.jsonl`` (or that file itself).
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from pathlib import Path

from harness.results.table import FILE_NAME
from harness.tracking.store import open_client


def client(tracking_uri: str):
    """An MlflowClient for the store (artifact downloads without progress bars)."""
    return open_client(tracking_uri)


def resolve_run(mlflow_client, ref: str):
    """A run by id, else the newest run with that name in any experiment; LookupError if none."""
    try:
        return mlflow_client.get_run(ref)
    except Exception:
        pass
    experiments = [e.experiment_id for e in mlflow_client.search_experiments()]
    escaped = ref.replace("'", "\\'")
    found = mlflow_client.search_runs(experiments, f"attributes.run_name = '{escaped}'",
                                      order_by=["attributes.start_time DESC"], max_results=1)
    if not found:
        raise LookupError(f"no run with id or name '{ref}'")
    return found[0]


# Runs that report on other runs rather than evaluate a configuration.
REPORT_ROLES = ("sweep", "comparison", "human_eval", "meta_eval")
# The statistics settings a sweep used, logged to its parent run (harness.tracking.statistics).
STATS_SETTINGS = "stats_settings.json"
_ID_PREFIX = re.compile(r"^[0-9a-f]{4,32}$")


def find_run(mlflow_client, ref: str, experiment_name: str):
    """A run by its full id (in any experiment), else by its name or a prefix of its id within
    ``experiment_name``. LookupError when there is none, or several (listing the candidates)."""
    try:
        return mlflow_client.get_run(ref)
    except Exception:
        pass
    experiment = mlflow_client.get_experiment_by_name(experiment_name)
    if experiment is None:
        known = ", ".join(sorted(e.name for e in mlflow_client.search_experiments()))
        raise LookupError(f"no run with id '{ref}', and no experiment '{experiment_name}' to find it by name in "
                          f"(experiments: {known}); pass --experiment NAME")
    escaped = ref.replace("'", "\\'")
    found = mlflow_client.search_runs([experiment.experiment_id], f"attributes.run_name = '{escaped}'",
                                      order_by=["attributes.start_time DESC"])
    found = [run for run in found if run.data.tags.get("harness.role") not in REPORT_ROLES]
    if not found and _ID_PREFIX.match(ref):
        found = [run for run in mlflow_client.search_runs([experiment.experiment_id],
                                                         order_by=["attributes.start_time DESC"])
                 if run.info.run_id.startswith(ref)]
    if not found:
        raise LookupError(f"no run with id, id prefix or name '{ref}' in experiment '{experiment_name}'")
    if len(found) > 1:
        listed = "\n".join(f"  {run.info.run_id}  {run.info.run_name}  started {_started(run)}  "
                           f"sweep {run.data.tags.get('mlflow.parentRunId', '-')}" for run in found)
        raise LookupError(f"'{ref}' is ambiguous in experiment '{experiment_name}', {len(found)} runs; "
                          f"name one by its id or an id prefix:\n{listed}")
    return found[0]


def _started(run) -> str:
    from datetime import datetime, timezone

    return datetime.fromtimestamp(run.info.start_time / 1000, tz=timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")


def sweep_stats_settings(mlflow_client, runs: list) -> tuple[dict | None, str | None]:
    """The statistics settings logged by the newest sweep that the runs belong to, and that
    sweep's parent run id; ``(None, None)`` when none of their sweeps logged any."""
    parents = {run.data.tags.get("mlflow.parentRunId") for run in runs} - {None}
    for parent in sorted((mlflow_client.get_run(p) for p in parents), key=lambda r: -r.info.start_time):
        if any(a.path == STATS_SETTINGS for a in mlflow_client.list_artifacts(parent.info.run_id)):
            with tempfile.TemporaryDirectory() as folder:
                path = mlflow_client.download_artifacts(parent.info.run_id, STATS_SETTINGS, folder)
                return json.loads(Path(path).read_text()), parent.info.run_id
    return None, None


def has_table(mlflow_client, run) -> bool:
    return any(a.path == FILE_NAME for a in mlflow_client.list_artifacts(run.info.run_id))


def experiment_runs(mlflow_client, name: str) -> list:
    """The newest finished run of each configuration in an experiment that has a per-question
    table (sweep parents and reports left out)."""
    experiment = mlflow_client.get_experiment_by_name(name)
    if experiment is None:
        raise LookupError(f"no experiment named '{name}'")
    runs = mlflow_client.search_runs([experiment.experiment_id], "attributes.status = 'FINISHED'",
                                     order_by=["attributes.start_time DESC"])
    newest: dict[str, object] = {}
    for run in runs:  # a configuration run several times counts once, with its newest run
        if run.data.tags.get("harness.role") in REPORT_ROLES:
            continue
        if run.info.run_name not in newest and has_table(mlflow_client, run):
            newest[run.info.run_name] = run
    return list(newest.values())


def download_table(mlflow_client, run, folder: Path) -> Path:
    """Downloads the run's per-question table into ``folder``; LookupError if it has none."""
    if not has_table(mlflow_client, run):
        raise LookupError(f"run {run.info.run_name} ({run.info.run_id}) has no {FILE_NAME} artifact")
    return Path(mlflow_client.download_artifacts(run.info.run_id, FILE_NAME, str(folder)))


def local_table(ref: str) -> Path | None:
    """``ref`` as a local per-question table (a run folder or the file), None if it names no path.

    A ref that looks like a path (has a separator or ends in .jsonl) but does not exist raises
    FileNotFoundError rather than being looked up in MLflow.
    """
    path = Path(ref)
    if path.is_dir():
        if not (path / FILE_NAME).is_file():
            raise FileNotFoundError(f"run folder {path} has no {FILE_NAME}")
        return path / FILE_NAME
    if path.is_file():
        return path
    if os.sep in ref or ref.endswith(".jsonl"):
        raise FileNotFoundError(f"no run folder or per-question table at {path}")
    return None


def open_run_table(ref: str, tracking_uri: str, folder: Path) -> tuple[Path, dict[str, str | None]]:
    """The per-question table for ``ref`` (downloaded into ``folder`` if it is in MLflow) and
    facts about the run: ``name``, ``run_id``, ``experiment_id`` (None for a local folder)."""
    path = local_table(ref)
    if path is not None:
        return path, {"name": ref, "run_id": None, "experiment_id": None}
    mlflow_client = client(tracking_uri)
    run = resolve_run(mlflow_client, ref)
    path = download_table(mlflow_client, run, folder)
    return path, {"name": run.info.run_name, "run_id": run.info.run_id, "experiment_id": run.info.experiment_id}
