"""A run's dataset as an MLflow input (``mlflow.log_input``), so the UI's Datasets column and filter work."""

from __future__ import annotations

import warnings
from pathlib import Path

# MLflow stores a dataset's digest in a 36-character column (``datasets.digest``): PostgreSQL refuses
# longer values. The full SHA-256 stays in the run's ``dataset.sha256`` tag.
DIGEST_CHARS = 36
# The dataset's role in the run, as MLflow's own evaluation logs it.
CONTEXT = "eval"


def dataset_input(name: str, sha256: str, source: str):
    """An ``mlflow.entities.DatasetInput`` naming the dataset, its digest (the harness's hash of
    its files, cut to MLflow's column) and where it was read from.

    A local file or folder is a ``local`` source; anything else (a Hugging Face Hub id) a
    ``hugging_face`` one.
    """
    from mlflow.data.dataset_source_registry import resolve_dataset_source
    from mlflow.data.huggingface_dataset_source import HuggingFaceDatasetSource
    from mlflow.data.meta_dataset import MetaDataset
    from mlflow.entities import DatasetInput, InputTag
    from mlflow.utils.mlflow_tags import MLFLOW_DATASET_CONTEXT

    if source and Path(source).exists():
        with warnings.catch_warnings():  # MLflow registers its local source twice ("" and "file") and says so
            warnings.simplefilter("ignore", UserWarning)
            origin = resolve_dataset_source(Path(source).resolve().as_uri())
    else:
        origin = HuggingFaceDatasetSource(path=source or name)
    dataset = MetaDataset(source=origin, name=name, digest=sha256[:DIGEST_CHARS])
    return DatasetInput(dataset._to_mlflow_entity(), tags=[InputTag(MLFLOW_DATASET_CONTEXT, CONTEXT)])
