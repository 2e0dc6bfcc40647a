"""The question set as an MLflow evaluation dataset (``mlflow.genai.datasets``), linked to the runs.

One dataset per dataset hash: the first job to log a dataset's questions creates it (named
``<dataset>-<sha256[:12]>``, tagged ``harness_dataset_sha256``) with one record per question,
inputs ``{"question", "question_id"}`` and expectations ``expected_response`` (the gold answer, or
the list of accepted answers) and ``expected_retrieved_context`` (the gold documents as
``[{"doc_uri": id}]``: MLflow's names, which the harness's scorers read); every job finds it by
that tag, links it to its experiment (the UI's Datasets page) and logs it as an input of its run
(the run's Datasets); parallel jobs that collide on the store's keys doing so try again. A job that
holds more than the dataset does (a race's later round scores more questions; a retrieval-only job
has no gold answers in its table) merges its records in; records are keyed by their inputs, so a
merge only adds. A store that holds no evaluation
datasets (a file store) is named once, in one line, and the job goes on; any other failure here
is one warning line too: the run itself is logged either way.
"""

from __future__ import annotations

import logging
import threading
from contextlib import contextmanager
from typing import Any

from harness.config.lru import LeastRecentlyUsed
from harness.results.records import RunResult
from harness.tracking.mlflow.inputs import ATTEMPTS, CONTEXT, is_conflict
from harness.tracking.mlflow.compat import dataset_entity
from harness.tracking.mlflow.store import one_line, shown, store_lock

log = logging.getLogger(__name__)

# Dataset tags: MLflow's dataset search finds no tag whose key holds a dot (3.17: `tags.`a.b` = 'x'`
# matches nothing), so these are written with underscores.
SHA_TAG = "harness_dataset_sha256"
COUNTS = ("harness_records", "harness_records_with_answers")  # what the dataset holds so far
_UNSUPPORTED = "not supported"  # MLflow's message for a store without evaluation datasets
_told: set[str] = set()  # stores already named as holding none
_GLOBAL_URI = threading.Lock()


def records(result: RunResult) -> list[dict[str, Any]]:
    """One evaluation record per question of the job's table, in table order."""
    out = []
    for row in result.rows:
        expectations: dict[str, Any] = {"expected_retrieved_context": [{"doc_uri": doc} for doc in
                                                                       row.get("gold_doc_ids") or []]}
        golds = row.get("gold_answers") or []
        if golds:
            expectations["expected_response"] = golds[0] if len(golds) == 1 else list(golds)
        out.append({"inputs": {"question": row.get("question", ""), "question_id": row["question_id"]},
                    "expectations": expectations,
                    "source": {"source_type": "DOCUMENT", "source_data": {"doc_uri": result.dataset_source}}})
    return out


def link_eval_dataset(client, tracking_uri: str, run_id: str, experiment_id: str, result: RunResult) -> str | None:
    """Creates (once per dataset hash), fills and links the evaluation dataset of ``result``'s
    questions; returns its id, or None when the store holds none or it failed (said in one line)."""
    from mlflow.exceptions import MlflowException

    for attempt in range(1, ATTEMPTS + 1):
        try:
            with _tracking_uri(tracking_uri):
                return _link(client, tracking_uri, run_id, experiment_id, result)
        except (MlflowException, NotImplementedError) as err:
            if _UNSUPPORTED in str(err) or isinstance(err, NotImplementedError):
                if tracking_uri not in _told:
                    _told.add(tracking_uri)
                    log.warning("MLflow at %s holds no evaluation datasets, so the question set is not on its "
                                "Datasets page (a SQL store such as sqlite:///mlflow.db does)", shown(tracking_uri))
                return None
            # Parallel jobs (joblib, Ray) of one dataset link it at the same instant: the later insert of
            # the same experiment link or record fails on the table's key; tried again, it finds them.
            if attempt == ATTEMPTS or not is_conflict(err):
                log.warning("the question set was not written as an MLflow evaluation dataset: %s", one_line(err))
                return None


def _link(client, tracking_uri: str, run_id: str, experiment_id: str, result: RunResult) -> str:
    with store_lock(tracking_uri):  # jobs of one machine create the dataset one at a time
        dataset = _find_or_create(client, experiment_id, result)
    wanted = records(result)
    counts = (len(wanted), sum("expected_response" in r["expectations"] for r in wanted))
    held = tuple(int((dataset.tags or {}).get(tag, 0)) for tag in COUNTS)
    if any(new > old for new, old in zip(counts, held)):
        dataset.merge_records(wanted)
        client.set_dataset_tags(dataset.dataset_id, {tag: str(max(new, old))
                                                      for tag, new, old in zip(COUNTS, counts, held)})
        dataset = client.get_dataset(dataset.dataset_id)
    _log_input(client, run_id, dataset)
    return dataset.dataset_id


def _find_or_create(client, experiment_id: str, result: RunResult):
    """The dataset of this hash, linked to the experiment. The store has no key on the hash, so jobs
    that share a SQLite store create it one at a time (``store_lock``); jobs on several machines that
    share a server may each create one at the same instant, and each then keeps the first in one
    order (oldest, then smallest id) and deletes its own unless it is that one: two can remain only
    when both were created in the same millisecond, each complete."""
    found = _of_hash(client, result.dataset_sha256)
    if not found:
        mine = client.create_dataset(name=f"{result.dataset}-{result.dataset_sha256[:12]}",
                                     experiment_id=[experiment_id],
                                     tags={SHA_TAG: result.dataset_sha256, "harness_dataset": result.dataset,
                                           "harness_dataset_source": result.dataset_source})
        found = _of_hash(client, result.dataset_sha256)
        if found[0].dataset_id != mine.dataset_id:
            client.delete_dataset(mine.dataset_id)
    dataset = found[0]
    if experiment_id not in (dataset.experiment_ids or []):
        client.add_dataset_to_experiments(dataset.dataset_id, [experiment_id])
    return dataset


def _of_hash(client, sha256: str) -> list:
    """The evaluation datasets tagged with this dataset hash, oldest first (ties by id)."""
    found = client.search_datasets(filter_string=f"tags.{SHA_TAG} = '{sha256}'")
    return sorted(found, key=lambda dataset: (dataset.created_time or 0, dataset.dataset_id))


def _log_input(client, run_id: str, dataset) -> None:
    """The dataset as an input of the run, in the role MLflow's own evaluation gives it."""
    from mlflow.entities import DatasetInput, InputTag
    from mlflow.utils.mlflow_tags import MLFLOW_DATASET_CONTEXT

    client.log_inputs(run_id, datasets=[DatasetInput(_entity(dataset),
                                                     tags=[InputTag(MLFLOW_DATASET_CONTEXT, CONTEXT)])])


def _entity(dataset):
    """The dataset's run-input entity, built once per version of the dataset in this process (MLflow
    reads every record back from the store to build it: a third of linking a job's run)."""
    key = (dataset.dataset_id, dataset.digest, dataset.last_update_time)
    if key not in _ENTITIES:
        _ENTITIES[key] = dataset_entity(dataset)
    return _ENTITIES[key]


_ENTITIES = LeastRecentlyUsed(64)  # (dataset id, digest, last update) -> its run-input entity


@contextmanager
def _tracking_uri(uri: str):
    """MLflow's process-wide tracking URI set to ``uri`` while the block runs, then as it was: an
    evaluation dataset found through a client still reads its experiments and writes its records
    (``merge_records``) through that URI's store."""
    import mlflow

    with _GLOBAL_URI:
        previous = mlflow.get_tracking_uri() if mlflow.is_tracking_uri_set() else None
        if previous != uri:
            mlflow.set_tracking_uri(uri)
        try:
            yield
        finally:
            if previous != uri:
                mlflow.set_tracking_uri(previous)
