"""A set ``harness synth`` wrote, as a dataset over the corpus it was written from (``dataset=synthetic``).

The set's summary (``FILE.summary.json``) holds the dataset config its documents came from
(``corpus``), so a set written from a BEIR or hub corpus is scored without a documents folder:

    harness -m dataset=synthetic dataset.questions=synth.jsonl retriever=bm25,dense,hybrid

The corpus config may name only the harness's own loaders (it is checked as a composed config is,
:func:`harness.config.allowlist.check_targets`); its relative paths were made absolute when it was written.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from harness.cache import content_key
from harness.data.questions_jsonl import read_questions
from harness.data.records import Dataset, DatasetError
from harness.data.validation import require_file
from harness.synth.output import summary_path

# Keys of a dataset config that hold paths (report.path_keys' dataset keys, and a hub corpus file).
PATH_KEYS = ("path", "questions", "documents", "corpus")


def corpus_config(dataset: dict[str, Any]) -> dict[str, Any]:
    """A resolved dataset config with its path keys made absolute (relative to the current folder),
    to be written into the set's summary."""
    return {key: str(Path(value).resolve()) if key in PATH_KEYS and isinstance(value, str) and value else value
            for key, value in dataset.items()}


def load_synthetic(name: str, questions: str) -> Dataset:
    """The set's questions over the documents of the dataset config its summary names.

    Raises:
        DatasetError: the set or its summary is missing or malformed, or its questions name
            documents the corpus does not have (file, line and field).
    """
    from hydra.utils import instantiate
    from omegaconf import OmegaConf

    from harness.config.allowlist import TargetNotAllowed, check_targets

    path = require_file(Path(questions), "questions file")
    summary = summary_path(path)
    try:
        corpus = json.loads(require_file(summary, "summary of the synthetic set").read_text(encoding="utf-8"))["corpus"]
    except (json.JSONDecodeError, KeyError, TypeError) as err:
        raise DatasetError(f"{summary}: no corpus config in it ({err}); was it written by harness synth?") from err
    node = OmegaConf.create({"dataset": corpus})
    try:
        check_targets(node)
    except TargetNotAllowed as err:
        raise DatasetError(f"{summary}: {err}") from err
    documents = instantiate(node.dataset).documents
    parsed = read_questions(path, {doc.id for doc in documents}, name)
    return Dataset(name=name, documents=documents, questions=tuple(parsed),
                   sha256=content_key([(d.id, d.title, d.text) for d in documents], path.read_text(encoding="utf-8")),
                   source=str(path.resolve()))
