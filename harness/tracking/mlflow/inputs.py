"""A run's dataset as an MLflow input (``mlflow.log_input``), so the UI's Datasets column and filter work."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

from harness.synth.provenance import synthetic_profile
from harness.tracking.mlflow.compat import dataset_entity

# MLflow stores a dataset's digest in a 36-character column (``datasets.digest``): PostgreSQL refuses
# longer values. The full SHA-256 stays in the run's ``dataset.sha256`` tag.
DIGEST_CHARS = 36
# The dataset's role in the run, as MLflow's own evaluation logs it.
CONTEXT = "eval"


def dataset_input(name: str, sha256: str, source: str):
    """An ``mlflow.entities.DatasetInput`` naming the dataset, its digest (the harness's hash of
    its files, cut to MLflow's column) and where it was read from.

    A local file or folder is a ``local`` source; anything else (a Hugging Face Hub id) a
    ``hugging_face`` one. A question file ``harness synth`` wrote carries its provenance (kinds,
    models, prompt hashes, seeds, what each filter removed) as the dataset's profile.
    """
    from mlflow.data.dataset_source_registry import resolve_dataset_source
    from mlflow.data.huggingface_dataset_source import HuggingFaceDatasetSource
    from mlflow.data.meta_dataset import MetaDataset
    from mlflow.entities import Dataset, DatasetInput, InputTag
    from mlflow.utils.mlflow_tags import MLFLOW_DATASET_CONTEXT

    if source and Path(source).exists():
        with warnings.catch_warnings():  # MLflow registers its local source twice ("" and "file") and says so
            warnings.simplefilter("ignore", UserWarning)
            origin = resolve_dataset_source(Path(source).resolve().as_uri())
    else:
        origin = HuggingFaceDatasetSource(path=source or name)
    entity = dataset_entity(MetaDataset(source=origin, name=name, digest=sha256[:DIGEST_CHARS]))
    profile = synthetic_profile(source) if source else None
    if profile is not None:
        entity = Dataset(name=entity.name, digest=entity.digest, source_type=entity.source_type, source=entity.source,
                         schema=entity.schema, profile=json.dumps(profile, sort_keys=True))
    return DatasetInput(entity, tags=[InputTag(MLFLOW_DATASET_CONTEXT, CONTEXT)])


# MLflow's stores look a dataset up, then insert it (SqlAlchemyStore.log_inputs), in two steps: two jobs
# of a parallel sweep (joblib, Ray) logging the same dataset at once both find none, and the later
# insert fails on the datasets table's key (SQLite: "UNIQUE constraint failed", PostgreSQL: "duplicate
# key"; a server answers with the store's message). Tried again, the lookup finds the row the other
# job wrote. Measured: 4 processes logging one dataset at the same instant, 3 of 4 failed each time.
# SQLite's "database is locked" (a writer held the file past the busy timeout) is transient too.
CONFLICT_MARKERS = ("UNIQUE constraint failed", "duplicate key", "IntegrityError", "RESOURCE_ALREADY_EXISTS",
                    "database is locked")
ATTEMPTS = 5


def is_conflict(err: BaseException) -> bool:
    """Whether a store call failed because another job inserted the same row meanwhile (or held the file)."""
    return any(marker in str(err) for marker in CONFLICT_MARKERS)


def log_dataset_input(client, run_id: str, dataset) -> None:
    """``client.log_inputs(run_id, [dataset])``, again (up to ``ATTEMPTS`` times in all) while it fails
    because another run inserted the same dataset meanwhile; any other error is raised at once."""
    from mlflow.exceptions import MlflowException

    for attempt in range(1, ATTEMPTS + 1):
        try:
            client.log_inputs(run_id, datasets=[dataset])
            return
        except MlflowException as err:
            if attempt == ATTEMPTS or not is_conflict(err):
                raise
