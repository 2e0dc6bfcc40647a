"""Reading runs back from an MLflow store: by id or name, an experiment's finished runs, artifacts.

Functions of an ``MlflowClient``; :class:`~harness.tracking.mlflow_tracker.MLflowTracker` exposes
them through the :class:`~harness.tracking.base.Tracker` interface.
"""

from __future__ import annotations

import re
import tempfile
from pathlib import Path

from harness.results.table import FILE_NAME
from harness.tracking.base import RunRef

CONFIG_FILE = "config.yaml"
PARENT_TAG = "mlflow.parentRunId"
# Runs that report on other runs rather than evaluate a configuration.
REPORT_ROLES = ("sweep", "comparison", "human_eval", "meta_eval", "align")
_ID_PREFIX = re.compile(r"^[0-9a-f]{4,32}$")


def run_ref(run) -> RunRef:
    return RunRef(run_id=run.info.run_id, name=run.info.run_name, experiment_id=run.info.experiment_id,
                  tags=dict(run.data.tags), parent_id=run.data.tags.get(PARENT_TAG))


def resolve_run(client, ref: str, experiment_name: str | None = None) -> RunRef:
    """A run by its full id (in any experiment), else by name (or id prefix) within
    ``experiment_name`` (:func:`find_run`), or, without one, the newest run with that name in any
    experiment. LookupError if there is none."""
    try:
        return run_ref(client.get_run(ref))
    except Exception:
        pass
    if experiment_name is not None:
        return run_ref(find_run(client, ref, experiment_name))
    experiments = [e.experiment_id for e in client.search_experiments()]
    escaped = ref.replace("'", "\\'")
    found = client.search_runs(experiments, f"attributes.run_name = '{escaped}'",
                               order_by=["attributes.start_time DESC"], max_results=1)
    if not found:
        raise LookupError(f"no run with id or name '{ref}'")
    return run_ref(found[0])


def find_run(client, ref: str, experiment_name: str):
    """A run by its name or a prefix of its id within ``experiment_name``. LookupError when there
    is none, or several (listing the candidates)."""
    experiment = client.get_experiment_by_name(experiment_name)
    if experiment is None:
        known = ", ".join(sorted(e.name for e in client.search_experiments()))
        raise LookupError(f"no run with id '{ref}', and no experiment '{experiment_name}' to find it by name in "
                          f"(experiments: {known}); pass --experiment NAME")
    escaped = ref.replace("'", "\\'")
    found = client.search_runs([experiment.experiment_id], f"attributes.run_name = '{escaped}'",
                               order_by=["attributes.start_time DESC"])
    found = [run for run in found if run.data.tags.get("harness.role") not in REPORT_ROLES]
    if not found and _ID_PREFIX.match(ref):
        found = [run for run in client.search_runs([experiment.experiment_id], order_by=["attributes.start_time DESC"])
                 if run.info.run_id.startswith(ref)]
    if not found:
        raise LookupError(f"no run with id, id prefix or name '{ref}' in experiment '{experiment_name}'")
    if len(found) > 1:
        listed = "\n".join(f"  {run.info.run_id}  {run.info.run_name}  started {_started(run)}  "
                           f"sweep {run.data.tags.get(PARENT_TAG, '-')}" for run in found)
        raise LookupError(f"'{ref}' is ambiguous in experiment '{experiment_name}', {len(found)} runs; "
                          f"name one by its id or an id prefix:\n{listed}")
    return found[0]


def _started(run) -> str:
    from datetime import datetime, timezone

    return datetime.fromtimestamp(run.info.start_time / 1000, tz=timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")


def sweep_file(client, runs: list[RunRef], name: str) -> tuple[str | None, str | None]:
    """The text of file ``name`` logged by the newest sweep parent of ``runs`` that has it, and
    that parent's run id; ``(None, None)`` when none has it."""
    parents = {run.parent_id for run in runs} - {None}
    for parent in sorted((client.get_run(p) for p in parents), key=lambda r: -r.info.start_time):
        if has_artifact(client, parent.info.run_id, name):
            with tempfile.TemporaryDirectory() as folder:
                path = client.download_artifacts(parent.info.run_id, name, folder)
                return Path(path).read_text(encoding="utf-8"), parent.info.run_id
    return None, None


def has_artifact(client, run_id: str, name: str) -> bool:
    return any(a.path == name for a in client.list_artifacts(run_id))


def finished_runs(client, experiment_name: str) -> list[RunRef]:
    """The newest finished run of each configuration with a per-question table; runs that report
    on other runs (sweep parents, comparisons, human and meta-evaluations) left out."""
    experiment = client.get_experiment_by_name(experiment_name)
    if experiment is None:
        raise LookupError(f"no experiment named '{experiment_name}'")
    runs = client.search_runs([experiment.experiment_id], "attributes.status = 'FINISHED'",
                              order_by=["attributes.start_time DESC"])
    newest: dict[str, RunRef] = {}
    for run in runs:  # a configuration run several times counts once, with its newest run
        if run.data.tags.get("harness.role") in REPORT_ROLES:
            continue
        if run.info.run_name not in newest and has_artifact(client, run.info.run_id, FILE_NAME):
            newest[run.info.run_name] = run_ref(run)
    return list(newest.values())


def download_table(client, run: RunRef, folder: Path) -> Path:
    """Downloads the run's per-question table into ``folder``; LookupError if it has none."""
    if not has_artifact(client, run.run_id, FILE_NAME):
        raise LookupError(f"run {run.name} ({run.run_id}) has no {FILE_NAME} artifact")
    folder.mkdir(parents=True, exist_ok=True)
    return Path(client.download_artifacts(run.run_id, FILE_NAME, str(folder)))


def download_config(client, run: RunRef) -> str | None:
    if not has_artifact(client, run.run_id, CONFIG_FILE):
        return None
    with tempfile.TemporaryDirectory() as tmp:
        return Path(client.download_artifacts(run.run_id, CONFIG_FILE, tmp)).read_text(encoding="utf-8")


def logged_table(client, run_id: str, artifact_file: str) -> str | None:
    """The text of the table ``artifact_file`` the run already holds (None if it holds none)."""
    if artifact_file not in {f.path for f in client.list_artifacts(run_id)}:
        return None
    with tempfile.TemporaryDirectory() as folder:
        return Path(client.download_artifacts(run_id, artifact_file, folder)).read_text()