"""SQuAD v1.1 / v2.0 JSON: each paragraph (or article) is a document, each question keeps every
gold answer.

Problems are reported with their JSON path, e.g.
``squad.json: data[0].paragraphs[3].qas[1]: field 'question' is missing``.
"""

from __future__ import annotations

import json
import logging
import re
import unicodedata
from pathlib import Path
from typing import Any

from harness.data.records import Dataset, DatasetError, Document, Question
from harness.data.validation import ProblemList, require_file, sha256_of_files

log = logging.getLogger(__name__)

DOCUMENT_UNITS = ("paragraphs", "articles")
ARTICLE_SEPARATOR = "\n\n"


def slug(title: str) -> str:
    """ASCII, lower case, runs of other characters as ``_``: ``"Beyoncé Knowles"`` -> ``"beyonce_knowles"``."""
    ascii_title = unicodedata.normalize("NFKD", title).encode("ascii", "ignore").decode()
    return re.sub(r"[^a-z0-9]+", "_", ascii_title.lower()).strip("_")


def load_squad(name: str, path: str, documents: str = "paragraphs") -> Dataset:
    """Loads and validates a SQuAD file.

    Args:
        name: the dataset's name in results.
        path: the SQuAD JSON file (v1.1 or v2.0).
        documents: ``"paragraphs"``: one document per paragraph, id ``<slug(title)>_<index>``;
            ``"articles"``: one document per article (its paragraphs joined by a blank line),
            id ``<slug(title)>``. Either way a question's gold document is the one holding its
            paragraph.

    Unanswerable v2.0 questions (``is_impossible``) are kept with ``answers=()``,
    ``ground_truth=None`` and ``metadata["is_impossible"] = True``; their paragraph stays the
    relevant document, since it is where the (absent) answer was looked for.
    """
    if documents not in DOCUMENT_UNITS:
        raise ValueError(f"documents must be one of {list(DOCUMENT_UNITS)}, got {documents!r}")
    file = require_file(Path(path), "SQuAD file")
    problems = ProblemList()
    articles = _read_json(file)
    docs: list[Document] = []
    questions: list[Question] = []
    first_seen: dict[str, str] = {}
    prefixes: set[str] = set()
    for a_index, article in _items(articles, "data", file, problems):
        where = f"data[{a_index}]"
        title = _field(article, "title", str, where, file, problems)
        paragraphs = _field(article, "paragraphs", list, where, file, problems)
        if title is None or paragraphs is None:
            continue
        prefix = _unique_prefix(slug(title) or f"article_{a_index}", a_index, prefixes)
        texts: list[str] = []
        for p_index, paragraph in enumerate(paragraphs):
            p_where = f"{where}.paragraphs[{p_index}]"
            if not isinstance(paragraph, dict):
                problems.add(file, None, f"{p_where}: expected an object, got {type(paragraph).__name__}")
                continue
            context = _field(paragraph, "context", str, p_where, file, problems)
            qas = _field(paragraph, "qas", list, p_where, file, problems)
            if context is None or qas is None:
                continue
            doc_id = f"{prefix}_{p_index}" if documents == "paragraphs" else prefix
            if documents == "paragraphs":
                docs.append(Document(id=doc_id, text=context, title=title))
            texts.append(context)
            for q_index, qa in enumerate(qas):
                q_where = f"{p_where}.qas[{q_index}]"
                question = _parse_question(qa, q_where, file, problems, doc_id, title)
                if question is None:
                    continue
                if question.id in first_seen:
                    problems.add(file, None, f"{q_where}: field 'id': duplicate id '{question.id}' "
                                             f"(first at {first_seen[question.id]})")
                    continue
                first_seen[question.id] = q_where
                questions.append(question)
        if documents == "articles" and texts:
            docs.append(Document(id=prefix, text=ARTICLE_SEPARATOR.join(texts), title=title))
    if not questions and not problems.problems:
        problems.add(file, None, "no questions")
    problems.raise_if_any(f"SQuAD dataset '{name}'")
    digest = sha256_of_files(file.parent, [file])
    return Dataset(name=name, documents=tuple(docs), questions=tuple(questions), sha256=digest,
                   source=str(file.resolve()))


def _read_json(file: Path) -> Any:
    try:
        with file.open(encoding="utf-8") as handle:
            return json.load(handle)
    except json.JSONDecodeError as err:
        raise DatasetError(f"{file}:{err.lineno}: not valid JSON ({err.msg.removesuffix(' at')} at column {err.colno})") from err
    except UnicodeDecodeError as err:
        raise DatasetError(f"{file}: not UTF-8 text ({err.reason} at byte {err.start})") from err


def _items(root: Any, key: str, file: Path, problems: ProblemList):
    """(index, object) for each entry of ``root[key]``; a wrong shape is a problem."""
    if not isinstance(root, dict):
        problems.add(file, None, f"expected a JSON object with a '{key}' list, got {type(root).__name__}")
        return
    entries = _field(root, key, list, "top level", file, problems)
    for index, entry in enumerate(entries or []):
        if isinstance(entry, dict):
            yield index, entry
        else:
            problems.add(file, None, f"{key}[{index}]: expected an object, got {type(entry).__name__}")


def _field(record: dict, name: str, kind: type, where: str, file: Path, problems: ProblemList,
           required: bool = True) -> Any:
    if record.get(name) is None:
        if required:
            problems.add(file, None, f"{where}: field '{name}' is missing")
        return None
    value = record[name]
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is not bool):
        problems.add(file, None, f"{where}: field '{name}' must be {kind.__name__}, got {type(value).__name__}")
        return None
    if isinstance(value, str) and not value.strip():
        problems.add(file, None, f"{where}: field '{name}' is empty")
        return None
    return value


def _unique_prefix(prefix: str, a_index: int, used: set[str]) -> str:
    if prefix in used:
        log.warning("two SQuAD articles slug to '%s'; data[%d]'s documents get the prefix '%s_%d'",
                    prefix, a_index, prefix, a_index)
        prefix = f"{prefix}_{a_index}"
    used.add(prefix)
    return prefix


def _parse_question(qa: Any, where: str, file: Path, problems: ProblemList, doc_id: str,
                    title: str) -> Question | None:
    if not isinstance(qa, dict):
        problems.add(file, None, f"{where}: expected an object, got {type(qa).__name__}")
        return None
    before = len(problems.problems)
    qid = _field(qa, "id", str, where, file, problems)
    text = _field(qa, "question", str, where, file, problems)
    raw_answers = _field(qa, "answers", list, where, file, problems)
    impossible = _field(qa, "is_impossible", bool, where, file, problems, required=False) or False
    answers: list[str] = []
    for a_index, answer in enumerate(raw_answers or []):
        a_where = f"{where}.answers[{a_index}]"
        if not isinstance(answer, dict):
            problems.add(file, None, f"{a_where}: expected an object, got {type(answer).__name__}")
            continue
        answer_text = _field(answer, "text", str, a_where, file, problems)
        _field(answer, "answer_start", int, a_where, file, problems, required=False)
        if answer_text is not None and answer_text.strip() not in answers:
            answers.append(answer_text.strip())
    if raw_answers is not None and impossible and raw_answers:
        problems.add(file, None, f"{where}: is_impossible is true but 'answers' is not empty")
    if raw_answers is not None and not impossible and not raw_answers:
        problems.add(file, None, f"{where}: field 'answers' is empty (mark unanswerable questions is_impossible)")
    if len(problems.problems) > before:
        return None
    metadata: dict[str, Any] = {"title": title}
    if impossible:
        metadata["is_impossible"] = True
    return Question(
        id=qid,
        text=text.strip(),
        relevant={doc_id: 1},
        ground_truth=answers[0] if answers else None,
        answers=tuple(answers),
        expected_answer=answers[0] if answers else None,
        metadata=metadata,
    )
