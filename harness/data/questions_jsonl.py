"""A question file of your own (JSONL, a JSON list, CSV or parquet) + a document folder.

Only the question is needed; the rest is used when present (:mod:`harness.data.question_fields`
lists the names read for each part, so RAGAS, DeepEval, MLflow and FlashRAG exports load as they
are):

* the answer under any common name (``answer``, ``ground_truth``, ``reference``...; one string or
  a list, every one accepted), which answer metrics need;
* ``id`` (else ``q-`` and a stable hash of the question);
* gold sources, as document ids (``needle_doc_id``, ``gold_doc_ids``...) or as passages of text
  (``reference_contexts``...) matched to the documents that hold them
  (:mod:`harness.data.gold_passages`), which retrieval metrics need;
* seed 004's ``domain``, ``difficulty``, ``source``, and this harness's ``key_facts``, ``route``,
  ``expected_answer`` and seed 001's ``answer_criteria``.

``required`` names the fields every record must have (the demo keeps seed 004's full schema).
Every malformed record is reported with its file and line.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable, Iterable
from dataclasses import replace
from pathlib import Path
from typing import Any

from harness.data.gold_passages import PassageMatcher
from harness.data.question_fields import ALIASES, NESTED, find, find_all, flatten, used_names
from harness.data.question_files import read_records
from harness.data.records import AnswerCriteria, Dataset, DatasetError, Document, Question
from harness.data.validation import ProblemList, field_value, require_file, sha256_of_files

log = logging.getLogger(__name__)

DIFFICULTIES = ("easy", "medium", "hard")
# Seed 004's fields and this harness's, read under their own names only.
OPTIONAL_STR_FIELDS = ("domain", "difficulty", "source", "expected_answer", "route")
# Seed 001's answer_criteria object: field -> accepted type.
CRITERIA_FIELDS = {"clarification_expected": bool, "out_of_scope": bool, "forbidden_keywords": list,
                   "min_semantic_similarity": (int, float)}
DEFAULT_EXTENSIONS = [".md", ".markdown", ".txt"]


def load_documents(folder: Path, extensions: list[str]) -> tuple[list[Document], list[Path]]:
    """Every file below ``folder`` with one of ``extensions``; the id is its relative path
    without the extension, the title its first markdown H1 (else the file name)."""
    if not folder.is_dir():
        raise DatasetError(f"documents folder not found: {folder}")
    suffixes = {ext.lower() for ext in extensions}
    files = sorted(p for p in folder.rglob("*") if p.is_file() and p.suffix.lower() in suffixes)
    if not files:
        raise DatasetError(f"no documents with extensions {sorted(suffixes)} in {folder}")
    documents = []
    for path in files:
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError as err:
            raise DatasetError(f"{path}: not UTF-8 text ({err.reason} at byte {err.start})") from err
        doc_id = path.relative_to(folder).with_suffix("").as_posix()
        documents.append(Document(id=doc_id, text=text, title=_markdown_title(text) or path.stem))
    return documents, files


def _markdown_title(text: str) -> str:
    for line in text.splitlines():
        if line.startswith("# "):
            return line[2:].strip()
    return ""


def load_document_folder(name: str, documents: str, extensions: list[str] | None = None) -> Dataset:
    """A folder of documents and no questions: the corpus ``harness synth`` writes a question set from."""
    folder = Path(documents)
    docs, files = load_documents(folder, list(extensions or DEFAULT_EXTENSIONS))
    return Dataset(name=name, documents=tuple(docs), questions=(), sha256=sha256_of_files(folder, files),
                   source=str(folder.resolve()))


def load_questions_jsonl(name: str, questions: str, documents: str, extensions: list[str] | None = None,
                         fields: dict[str, str | None] | None = None, required: list[str] | None = None,
                         passage_overlap: float = 0.8, duplicates: str = "keep") -> Dataset:
    """Loads and validates the dataset; every malformed record is reported with file and line.

    Args:
        fields: part (``question``, ``answers``, ``id``, ``relevant``, ``contexts``, ``key_facts``)
            -> the column holding it (null: looked up under the usual names).
        required: fields every record must have (default: the question alone).
        passage_overlap: the share of a gold passage's words one document must hold for the
            passage to match it when no document contains it verbatim.
        duplicates: a question without an id asked twice: ``keep`` (two questions), ``merge``
            (one, with a warning) or ``error``.
    """
    questions_path = require_file(Path(questions), "questions file")
    docs_folder = Path(documents)
    docs, doc_files = load_documents(docs_folder, list(extensions or DEFAULT_EXTENSIONS))
    parsed = read_questions(questions_path, {doc.id for doc in docs}, name, fields=fields, required=required,
                            matcher=PassageMatcher(docs, passage_overlap), duplicates=duplicates)
    digest = sha256_of_files(docs_folder, doc_files, extra=[questions_path])
    return Dataset(name=name, documents=tuple(docs), questions=tuple(parsed), sha256=digest,
                   source=str(questions_path.resolve()))


def read_questions(path: Path, doc_ids: set[str], name: str, fields: dict[str, str | None] | None = None,
                   required: list[str] | None = None, matcher: PassageMatcher | None = None,
                   duplicates: str = "keep") -> list[Question]:
    """The questions of a question file whose gold documents are among ``doc_ids``.

    Raises:
        DatasetError: naming every malformed record's file, line and field.
    """
    return parse_questions(lambda problems: read_records(path, problems), path, doc_ids, name, fields, required,
                           matcher, duplicates)


def parse_questions(records_of: Callable[[ProblemList], Iterable[tuple[int, dict]]], source: Path,
                    doc_ids: set[str], name: str, fields: dict[str, str | None] | None = None,
                    required: list[str] | None = None, matcher: PassageMatcher | None = None,
                    duplicates: str = "keep") -> list[Question]:
    """The questions of the records ``records_of(problems)`` yields with their line numbers (a
    file's, or an MLflow evaluation dataset's), problems named ``source:line: field ...``.

    A question without an id asked again (the same text) is, by ``duplicates``: ``keep``, another
    question (its id gets ``-2``, ``-3``...), ``merge``, one question with the answers and gold
    documents of both (a warning names the lines), or ``error``. An id written twice is an error.
    """
    if duplicates not in DUPLICATES:
        raise DatasetError(f"dataset '{name}': duplicates must be one of {list(DUPLICATES)}, got {duplicates!r}")
    unknown = sorted(set(fields or {}) - set(ALIASES))
    if unknown:
        raise DatasetError(f"dataset '{name}': fields {unknown} are unknown; expected some of {sorted(ALIASES)}")
    reader = _Reader(source, doc_ids, dict(fields or {}), list(required or ["question"]), matcher)
    parsed: list[Question] = []
    seen: dict[str, int] = {}
    repeats = Repeats(duplicates, source, reader.problems)
    for line, record in records_of(reader.problems):
        question = reader.question(record, line)
        if question is None:
            continue
        if question.id in seen and reader.id_given:
            reader.problems.add(source, line, f"field 'id': duplicate id '{question.id}' (first on line {seen[question.id]}); "
                                              f"each question needs its own id")
            continue
        if question.id in seen:
            question = repeats.of(question, line, parsed, seen)
            if question is None:
                continue
        seen[question.id] = line
        parsed.append(question)
    repeats.warn()
    reader.missing_everywhere()
    if not parsed and not reader.problems.problems:
        reader.problems.add(source, None, "no questions")
    reader.problems.raise_if_any(f"dataset '{name}'")
    return parsed


DUPLICATES = ("keep", "merge", "error")


def question_id(text: str) -> str:
    """The id of a question given without one: stable across runs, files and machines.

    >>> question_id("What is the capital of France?")
    'q-115049a29853'
    """
    return "q-" + hashlib.sha256(" ".join(text.split()).encode()).hexdigest()[:12]


class Repeats:
    """Questions without ids asked again: kept apart, merged into the first, or refused (``duplicates``)."""

    def __init__(self, duplicates: str, source: Path, problems: ProblemList) -> None:
        self.duplicates, self.source, self.problems = duplicates, source, problems
        self.counts: dict[str, int] = {}
        self.merged: list[str] = []

    def of(self, question: Question, line: int, parsed: list[Question], seen: dict[str, int]) -> Question | None:
        """The repeated question as it is kept (a new id), or None (merged into the first, or refused)."""
        first = seen[question.id]
        if self.duplicates == "error":
            self.problems.add(self.source, line, f"the question repeats line {first}'s, and neither has an id: give "
                                                 f"each an id, or set dataset.duplicates=keep (two questions) or merge")
            return None
        if self.duplicates == "merge":
            index = next(i for i, kept in enumerate(parsed) if kept.id == question.id)
            kept = parsed[index]
            answers = tuple(dict.fromkeys([*kept.answers, *question.answers]))
            parsed[index] = replace(kept, answers=answers, relevant={**question.relevant, **kept.relevant},
                                    ground_truth=kept.ground_truth or question.ground_truth)
            self.merged.append(f"line {line} into line {first}")
            return None
        self.counts[question.id] = self.counts.get(question.id, 1) + 1
        return replace(question, id=f"{question.id}-{self.counts[question.id]}")

    def warn(self) -> None:
        if self.merged:
            log.warning("%s: %d repeated question(s) without an id merged into the first (dataset.duplicates=merge): %s",
                        self.source, len(self.merged), ", ".join(self.merged[:10]))


class _Reader:
    """Parses one file's records, collecting every problem as ``file:line: field ...``."""

    def __init__(self, path: Path, doc_ids: set[str], fields: dict[str, str | None], required: list[str],
                 matcher: PassageMatcher | None) -> None:
        self.path, self.doc_ids, self.fields, self.required, self.matcher = path, doc_ids, fields, required, matcher
        self.problems = ProblemList()
        self.id_given = False  # whether the last question read had an id of its own
        self.missing: dict[str, list[str]] = {}  # required field -> its per-line problems
        self.records, self.columns = 0, set()

    def add(self, line: int, message: str) -> None:
        self.problems.add(self.path, line, message)

    def add_missing(self, line: int, part: str, message: str) -> None:
        """A required field missing from a record (one message for the file when every record lacks it)."""
        self.add(line, message)
        self.missing.setdefault(part, []).append(self.problems.problems[-1])

    def missing_everywhere(self) -> None:
        """Replaces the per-line problems of a field no record has with one naming the columns found."""
        for part, problems in self.missing.items():
            if len(problems) < 2 or len(problems) != self.records:
                continue
            lines = set(problems)
            self.problems.problems = [problem for problem in self.problems.problems if problem not in lines]
            column = self.fields.get(part)
            names = [column] if column else ALIASES.get(part, (part,))
            self.problems.add(self.path, None, f"no record has field '{part}' (looked for {', '.join(map(repr, names))}); "
                                               f"the columns found are {sorted(self.columns)}: name the one that holds "
                                               f"it with dataset.fields.{part}=<column>")

    def question(self, raw: dict, line: int) -> Question | None:
        before = len(self.problems.problems)
        record = flatten(raw)
        self.records += 1
        self.columns.update(record)
        for key in self.required:
            found = find(record, key, self.fields)[0] if key in ALIASES else (key if record.get(key) is not None else None)
            if found is None and key != "question":  # a missing question is reported below
                self.add_missing(line, key, f"field '{key}' is missing")
        text = self._text(record, line, "question", required=True)
        qid = self._text(record, line, "id")
        self.id_given = qid is not None
        answers = self._answers(record, line)
        values = {key: field_value(record, key, str, self.path, line, self.problems, required=False)
                  for key in OPTIONAL_STR_FIELDS}
        if values["difficulty"] is not None and values["difficulty"] not in DIFFICULTIES:
            self.add(line, f"field 'difficulty' must be one of {list(DIFFICULTIES)}, got '{values['difficulty']}'")
        facts = self._strings(record, line, "key_facts")
        relevant = self._relevant(record, line)
        criteria = _parse_criteria(record, self.path, line, self.problems)
        if len(self.problems.problems) > before:
            return None
        known = used_names(record, self.fields) | set(OPTIONAL_STR_FIELDS) | {"answer_criteria", *NESTED}
        metadata = {key: values[key] for key in ("domain", "source") if values[key] is not None}
        return Question(
            id=qid or question_id(text), text=text, relevant=relevant, key_facts=facts,
            ground_truth=answers[0] if answers else None, answers=answers,
            expected_answer=values["expected_answer"] or (answers[0] if answers else None),
            difficulty=values["difficulty"], route=values["route"], answer_criteria=criteria,
            metadata={**metadata, **{k: v for k, v in record.items() if k not in known}})

    def _text(self, record: dict, line: int, part: str, required: bool = False) -> str | None:
        name, value = find(record, part, self.fields)
        if name is None:
            if required and self.fields.get(part):
                self.add_missing(line, part, f"field '{part}' (column '{self.fields[part]}') is missing")
            elif required:
                others = [n for n in ALIASES[part] if n != part]
                self.add_missing(line, part, f"field '{part}' is missing" + (f" (nor {', '.join(others)})" if others else ""))
            return None
        if not isinstance(value, str) or isinstance(value, bool):
            self.add(line, f"field '{name}' must be str, got {type(value).__name__}")
            return None
        if not value.strip():
            self.add(line, f"field '{name}' is empty")
            return None
        return value.strip() if part == "question" else value

    def _strings(self, record: dict, line: int, part: str) -> tuple[str, ...]:
        """A list of non-empty strings (``key_facts``)."""
        name, value = find(record, part, self.fields)
        if name is None:
            return ()
        if not isinstance(value, list):
            self.add(line, f"field '{name}' must be list, got {type(value).__name__}")
            return ()
        for index, item in enumerate(value):
            if not isinstance(item, str) or not item.strip():
                self.add(line, f"field '{name}[{index}]' must be a non-empty string")
        return tuple(item for item in value if isinstance(item, str))

    def _answers(self, record: dict, line: int) -> tuple[str, ...]:
        """Every accepted answer: one string or a list of strings, deduplicated in order."""
        name, value = find(record, "answers", self.fields)
        if name is None:
            return ()
        if isinstance(value, str):
            if not value.strip():
                self.add(line, f"field '{name}' is empty")
            return (value,) if value.strip() else ()
        if not isinstance(value, list):
            self.add(line, f"field '{name}' must be str or list, got {type(value).__name__}")
            return ()
        for index, item in enumerate(value):
            if not isinstance(item, str) or not item.strip():
                self.add(line, f"field '{name}[{index}]' must be a non-empty string, got {item!r}")
        return tuple(dict.fromkeys(item for item in value if isinstance(item, str) and item.strip()))

    def _relevant(self, record: dict, line: int) -> dict[str, int]:
        """Gold documents: ids under any of their names, and the documents holding gold passages."""
        relevant: dict[str, int] = {}
        for name, value in find_all(record, "relevant", self.fields):
            items = value if isinstance(value, list) else [value]
            for index, doc_id in enumerate(items):
                where = f"field '{name}'" if not isinstance(value, list) else f"field '{name}[{index}]'"
                if not isinstance(doc_id, (str, int)) or isinstance(doc_id, bool) or str(doc_id) not in self.doc_ids:
                    self.add(line, f"{where}: no document {doc_id!r} in the documents folder")
                else:
                    relevant[str(doc_id)] = 1
        for name, value in find_all(record, "contexts", self.fields):
            items = value if isinstance(value, list) else [value]
            for index, passage in enumerate(items):
                relevant.update(dict.fromkeys(self._passage_documents(name, index, passage, line), 1))
        return relevant

    def _passage_documents(self, name: str, index: int, passage: Any, line: int) -> list[str]:
        where = f"field '{name}[{index}]'"
        if isinstance(passage, dict):  # MLflow's {doc_uri, content}
            doc_id = next((passage[k] for k in ("doc_id", "doc_uri", "id") if passage.get(k) is not None), None)
            if doc_id is not None and str(doc_id) in self.doc_ids:
                return [str(doc_id)]
            passage = next((passage[k] for k in ("content", "text") if isinstance(passage.get(k), str)), None)
        if not isinstance(passage, str) or not passage.strip():
            self.add(line, f"{where} must be a passage of text (or an object with content), got {passage!r}")
            return []
        found = self.matcher.documents_of(passage) if self.matcher is not None else []
        if not found:
            shown = passage if len(passage) <= 60 else passage[:57] + "..."
            self.add(line, f"{where}: no document holds the passage {shown!r}")
        return found


def _parse_criteria(record: dict, path: Path, line: int, problems: ProblemList) -> AnswerCriteria:
    """The optional ``answer_criteria`` object; unknown keys and wrong types are problems."""
    raw = field_value(record, "answer_criteria", dict, path, line, problems, required=False)
    if not raw:
        return AnswerCriteria()
    for key in sorted(raw.keys() - CRITERIA_FIELDS.keys()):
        problems.add(path, line, f"field 'answer_criteria.{key}' is unknown; expected one of {sorted(CRITERIA_FIELDS)}")
    named = {f"answer_criteria.{key}": value for key, value in raw.items()}  # messages name the full key
    values = {key: field_value(named, f"answer_criteria.{key}", kind, path, line, problems, required=False)
              for key, kind in CRITERIA_FIELDS.items()}
    keywords = values["forbidden_keywords"] or []
    for index, keyword in enumerate(keywords):
        if not isinstance(keyword, str) or not keyword.strip():
            problems.add(path, line, f"field 'answer_criteria.forbidden_keywords[{index}]' must be a non-empty string")
    minimum = values["min_semantic_similarity"]
    if minimum is not None and not 0 <= minimum <= 1:
        problems.add(path, line, f"field 'answer_criteria.min_semantic_similarity' must be in [0, 1], got {minimum}")
    if values["clarification_expected"] and values["out_of_scope"]:
        problems.add(path, line, "field 'answer_criteria': clarification_expected and out_of_scope are exclusive")
    return AnswerCriteria(clarification_expected=bool(values["clarification_expected"]),
                          out_of_scope=bool(values["out_of_scope"]),
                          forbidden_keywords=tuple(k for k in keywords if isinstance(k, str)),
                          min_semantic_similarity=None if minimum is None else float(minimum))
