"""``dataset=mlflow_eval``: the questions of an MLflow evaluation dataset (``mlflow.genai.datasets``),
by name, from the tracking store, over a folder of documents.

Each record's ``inputs`` and ``expectations`` are read as a question file's record
(:mod:`harness.data.questions_jsonl`): ``inputs.question`` (or ``query``...), ``expectations.
expected_response``, ``expected_facts`` and ``expected_retrieved_context`` (``doc_uri``: a document
id, or ``content``: a passage matched to the document that holds it). A problem is named
``mlflow-dataset:<name>:<record number>: field ...``. When several datasets have the name, the
newest is read.
"""

from __future__ import annotations

from pathlib import Path

from harness.cache import content_key
from harness.data.gold_passages import PassageMatcher
from harness.data.questions_jsonl import DEFAULT_EXTENSIONS, load_documents, parse_questions
from harness.data.records import Dataset, DatasetError
from harness.data.validation import sha256_of_files
from harness.tracking.mlflow.eval_dataset import _tracking_uri
from harness.tracking.mlflow.store import shown


def load_evaluation_dataset(name: str, evaluation_dataset: str, documents: str, tracking_uri: str,
                            extensions: list[str] | None = None, fields: dict[str, str | None] | None = None,
                            required: list[str] | None = None, passage_overlap: float = 0.8) -> Dataset:
    """The evaluation dataset named ``evaluation_dataset`` in the store at ``tracking_uri``, as a Dataset."""
    from mlflow.tracking import MlflowClient

    folder = Path(documents)
    docs, doc_files = load_documents(folder, list(extensions or DEFAULT_EXTENSIONS))
    client = MlflowClient(tracking_uri)
    with _tracking_uri(tracking_uri):
        found = client.search_datasets(filter_string=f"name = '{evaluation_dataset}'")
        if not found:
            raise DatasetError(f"no MLflow evaluation dataset named '{evaluation_dataset}' in {shown(tracking_uri)}")
        dataset = max(found, key=lambda d: (d.created_time or 0, d.dataset_id))
        rows = [{"inputs": dict(r.inputs or {}), "expectations": dict(r.expectations or {})}
                for r in client.get_dataset(dataset.dataset_id).records]
    source = Path(f"mlflow-dataset:{evaluation_dataset}")
    questions = parse_questions(lambda problems: enumerate(rows, start=1), source, {d.id for d in docs}, name,
                                fields, required, PassageMatcher(docs, passage_overlap))
    digest = content_key(sha256_of_files(folder, doc_files), dataset.dataset_id, dataset.digest, rows)
    return Dataset(name=name, documents=tuple(docs), questions=tuple(questions), sha256=digest,
                   source=f"{shown(tracking_uri)}#dataset={evaluation_dataset}")
