"""Any dataset the Hugging Face ``datasets`` library reads: a Hub id (with internet), a folder written
by ``save_to_disk``, or local parquet / JSONL / CSV files (offline), with a field mapping.

``fields`` names the column of each part of a question (dotted paths reach into nested columns,
e.g. ``answer.aliases`` for TriviaQA, and through lists: ``output.answer`` for KILT); ``corpus_fields`` does the same for the passages of an
optional corpus. Rows are validated one by one, problems named ``<source>:<row>: field ...``.
``sha256`` is a digest of the local files' bytes, or of ``datasets``' own fingerprints for a
Hub dataset or a ``save_to_disk`` folder.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from harness.data.flashrag import split_contents
from harness.data.records import Dataset, DatasetError, Document, Question
from harness.data.subset import check_subset, select
from harness.data.validation import ProblemList, sha256_of_files

log = logging.getLogger(__name__)

# How a local file's suffix maps to the ``datasets`` packaged builder that reads it.
FILE_BUILDERS = {".parquet": "parquet", ".jsonl": "json", ".json": "json", ".csv": "csv"}
# Files ``save_to_disk`` writes next to the Arrow shards.
SAVED_MARKERS = ("state.json", "dataset_dict.json")
ROWS_PER_BATCH = 10_000


def open_hf(path: str, config_name: str | None, split: str, revision: str | None = None,
            cache_dir: str | None = None, load_options: dict | None = None):
    """(``datasets.Dataset``, fingerprint) for a Hub id, a ``save_to_disk`` folder or local files."""
    import datasets

    local = Path(path).expanduser()
    try:
        if local.is_dir() and any((local / marker).is_file() for marker in SAVED_MARKERS):
            loaded = datasets.load_from_disk(str(local))
            if isinstance(loaded, datasets.DatasetDict):
                if split not in loaded:
                    raise DatasetError(f"{local}: no split '{split}' (it has {sorted(loaded)})")
                loaded = loaded[split]
            return loaded, f"datasets:{loaded._fingerprint}"
        if local.is_file():
            builder = FILE_BUILDERS.get(local.suffix.lower())
            if builder is None:
                raise DatasetError(f"{local}: unknown data file type; expected one of {sorted(FILE_BUILDERS)}")
            loaded = datasets.load_dataset(builder, data_files={split: str(local)}, split=split,
                                           cache_dir=cache_dir, **(load_options or {}))
            return loaded, f"sha256:{sha256_of_files(local.parent, [local])}"
        loaded = datasets.load_dataset(path, config_name, split=split, revision=revision, cache_dir=cache_dir,
                                       **(load_options or {}))
    except DatasetError:
        raise
    except Exception as err:  # datasets' own errors (no such dataset, offline, bad split) named with the source
        raise DatasetError(f"cannot load '{path}' (config {config_name!r}, split '{split}') with datasets: "
                           f"{type(err).__name__}: {err}") from err
    return loaded, f"datasets:{loaded._fingerprint}"


def rows(table, paths: list[str | None]) -> Iterator[tuple[int, dict[str, Any]]]:
    """(row number from 1, row) with only the top-level columns the mapping uses, batch by batch."""
    needed = sorted({p.split(".")[0] for p in paths if p})
    missing = [name for name in needed if name not in table.column_names]
    if missing:
        raise DatasetError(f"columns {missing} are not in the dataset (it has {table.column_names}); "
                           f"fix the field mapping")
    number = 0
    for batch in table.select_columns(needed).iter(batch_size=ROWS_PER_BATCH):
        for values in zip(*(batch[name] for name in needed)):
            number += 1
            yield number, dict(zip(needed, values))


def lookup(row: dict, path: str) -> Any:
    """``row["a"]["b"]`` for ``path="a.b"``; through a list, the values of its items, flattened
    (KILT's ``output.answer``); None when a level is absent.

    Example:
        >>> lookup({"answers": {"text": ["Paris"]}}, "answers.text")
        ['Paris']
        >>> lookup({"output": [{"answer": "Paris"}, {"provenance": [{"id": 7}, {"id": 9}]}]}, "output.provenance.id")
        [7, 9]
    """
    value: Any = row
    for part in path.split("."):
        if isinstance(value, list):
            found = [lookup(item, part) for item in value if isinstance(item, dict)]
            value = [v for item in found if item is not None for v in (item if isinstance(item, list) else [item])]
        elif isinstance(value, dict) and part in value:
            value = value[part]
        else:
            return None
    return value


class Rows:
    """Reads mapped fields of one source's rows, recording problems as ``source:row: field ...``."""

    def __init__(self, source: str, problems: ProblemList) -> None:
        self.source, self.problems = Path(source), problems

    def get(self, row: dict, number: int, key: str, path: str | None, kinds: tuple[type, ...],
            required: bool = True) -> Any:
        if path is None:
            return None
        value = lookup(row, path)
        where = f"field '{key}' (column '{path}')"
        if value is None:
            if required:
                self.problems.add(self.source, number, f"{where} is missing")
            return None
        if not isinstance(value, kinds) or isinstance(value, bool):
            names = " or ".join(kind.__name__ for kind in kinds)
            self.problems.add(self.source, number, f"{where} must be {names}, got {type(value).__name__}")
            return None
        if isinstance(value, str) and not value.strip():
            self.problems.add(self.source, number, f"{where} is empty")
            return None
        return value

    def strings(self, row: dict, number: int, key: str, path: str | None) -> tuple[str, ...]:
        """A string or a list of strings, deduplicated, in order."""
        value = self.get(row, number, key, path, (str, list), required=False)
        items = [value] if isinstance(value, str) else value or []
        kept: list[str] = []
        for index, item in enumerate(items):
            if not isinstance(item, (str, int)) or isinstance(item, bool) or not str(item).strip():
                self.problems.add(self.source, number, f"field '{key}[{index}]' (column '{path}') "
                                                       f"must be a non-empty string, got {item!r}")
            elif str(item).strip() not in kept:
                kept.append(str(item).strip())
        return tuple(kept)


def load_corpus(path: str, config_name: str | None, split: str, fields: dict, problems: ProblemList,
                **options) -> tuple[list[Document], str]:
    """The passages of a corpus dataset, by ``fields``: ``id`` and ``text`` (+ ``title``) or ``contents``."""
    if (fields.get("text") is None) == (fields.get("contents") is None):
        raise ValueError("dataset.corpus_fields needs exactly one of 'text' and 'contents'")
    table, fingerprint = open_hf(path, config_name, split, **options)
    reader = Rows(f"{path}[{split}]", problems)
    documents, seen = [], {}
    for number, row in rows(table, [fields["id"], fields.get("text"), fields.get("title"), fields.get("contents")]):
        doc_id = reader.get(row, number, "id", fields["id"], (str, int))
        if fields.get("contents") is not None:
            contents = reader.get(row, number, "contents", fields["contents"], (str,))
            title, text = split_contents(contents) if contents is not None else ("", None)
        else:
            text = reader.get(row, number, "text", fields["text"], (str,))
            title = reader.get(row, number, "title", fields.get("title"), (str,), required=False) or ""
        if doc_id is None or text is None:
            continue
        if str(doc_id) in seen:
            problems.add(reader.source, number, f"field 'id': duplicate id '{doc_id}' (first on row {seen[str(doc_id)]})")
            continue
        seen[str(doc_id)] = number
        documents.append(Document(id=str(doc_id), text=text, title=title))
    return documents, fingerprint


def load_hf(name: str, path: str, split: str, fields: dict, config_name: str | None = None,
            revision: str | None = None, corpus: str | None = None, corpus_config_name: str | None = None,
            corpus_split: str = "train", corpus_fields: dict | None = None, cache_dir: str | None = None,
            load_options: dict | None = None, limit: int | None = None, sample: int | None = None,
            seed: int = 0) -> Dataset:
    """Loads the questions (and the corpus, if given) and validates every row.

    The documents are the corpus's passages, plus one per distinct ``fields.context`` value (a
    SQuAD-style dataset brings the passage with each question, which is then its gold document).
    ``fields.relevant`` may name gold corpus ids (a list, one id, or an id -> grade object).
    """
    check_subset(limit, sample)
    fields = dict(fields)
    options = {"cache_dir": cache_dir, "load_options": dict(load_options or {})}
    problems = ProblemList()
    documents, corpus_fingerprint = [], None
    if corpus is not None:
        documents, corpus_fingerprint = load_corpus(corpus, corpus_config_name, corpus_split,
                                                    dict(corpus_fields or {}), problems, **options)
        problems.raise_if_any(f"corpus of dataset '{name}'")
    elif fields.get("context") is None:
        raise DatasetError(f"dataset '{name}' has no passages: give dataset.corpus or dataset.fields.context")
    table, fingerprint = open_hf(path, config_name, split, revision=revision, **options)
    questions = _questions(table, f"{path}[{split}]", fields, problems, documents)
    if not questions and not problems.problems:
        problems.add(Path(f"{path}[{split}]"), None, "no questions")
    problems.raise_if_any(f"dataset '{name}'")
    digest = hashlib.sha256("\0".join(f for f in (fingerprint, corpus_fingerprint) if f).encode()).hexdigest()
    log.info("dataset %s: %s%s", name, fingerprint, f", corpus {corpus_fingerprint}" if corpus_fingerprint else "")
    return Dataset(name=name, documents=tuple(documents), questions=tuple(select(questions, limit, sample, seed)),
                   sha256=digest, source=path)


def _questions(table, source: str, fields: dict, problems: ProblemList, documents: list[Document]) -> list[Question]:
    reader = Rows(source, problems)
    corpus_ids = {doc.id for doc in documents}
    context_ids: dict[tuple[str, str], str] = {}
    questions, seen = [], {}
    paths = [fields.get(key) for key in ("question", "answers", "id", "relevant", "context", "context_title")]
    for number, row in rows(table, paths):
        before = len(problems.problems)
        text = reader.get(row, number, "question", fields["question"], (str,))
        qid = reader.get(row, number, "id", fields.get("id"), (str, int))
        qid = str(number) if fields.get("id") is None else qid
        answers = reader.strings(row, number, "answers", fields.get("answers"))
        relevant = _relevant(reader, row, number, fields.get("relevant"), corpus_ids)
        context = reader.get(row, number, "context", fields.get("context"), (str,))
        if context is not None:
            title = reader.get(row, number, "context_title", fields.get("context_title"), (str,), required=False) or ""
            key = (title, context)
            if key not in context_ids:
                digest = hashlib.sha256("\0".join(key).encode()).hexdigest()
                context_ids[key] = f"ctx-{digest[:16]}"
                documents.append(Document(id=context_ids[key], text=context, title=title))
            relevant[context_ids[key]] = 1
        if len(problems.problems) > before or qid is None:
            continue
        if str(qid) in seen:
            problems.add(reader.source, number, f"field 'id': duplicate id '{qid}' (first on row {seen[str(qid)]})")
            continue
        seen[str(qid)] = number
        questions.append(Question(id=str(qid), text=text.strip(), relevant=relevant, answers=answers,
                                  ground_truth=answers[0] if answers else None,
                                  expected_answer=answers[0] if answers else None))
    return questions


def _relevant(reader: Rows, row: dict, number: int, path: str | None, corpus_ids: set[str]) -> dict[str, int]:
    """Gold corpus ids: one id, a list of ids (grade 1) or an id -> grade object."""
    value = reader.get(row, number, "relevant", path, (str, int, list, dict), required=False)
    if value is None:
        return {}
    grades = ({str(k): v for k, v in value.items()} if isinstance(value, dict)
              else {str(v): 1 for v in (value if isinstance(value, list) else [value])})
    for doc_id, grade in grades.items():
        if not isinstance(grade, int) or isinstance(grade, bool):
            reader.problems.add(reader.source, number, f"field 'relevant' (column '{path}'): grade of '{doc_id}' "
                                                       f"must be an integer, got {grade!r}")
        elif doc_id not in corpus_ids:
            reader.problems.add(reader.source, number, f"field 'relevant' (column '{path}'): no passage '{doc_id}' "
                                                       f"in the corpus")
    return grades
