"""questions.jsonl (seed 004's schema plus key facts, needle document, route) + a document folder."""

from __future__ import annotations

from pathlib import Path

from harness.data.records import AnswerCriteria, Dataset, DatasetError, Document, Question
from harness.data.validation import ProblemList, field_value, parse_jsonl, require_file, sha256_of_files

DIFFICULTIES = ("easy", "medium", "hard")
# Seed 004's required fields, then the optional ones this harness adds.
REQUIRED_STR_FIELDS = ("id", "domain", "difficulty", "question", "ground_truth", "source")
OPTIONAL_STR_FIELDS = ("expected_answer", "needle_doc_id", "route")
# Seed 001's answer_criteria object: field -> accepted type.
CRITERIA_FIELDS = {"clarification_expected": bool, "out_of_scope": bool, "forbidden_keywords": list,
                   "min_semantic_similarity": (int, float)}


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
    docs, files = load_documents(folder, list(extensions or [".md", ".markdown", ".txt"]))
    return Dataset(name=name, documents=tuple(docs), questions=(), sha256=sha256_of_files(folder, files),
                   source=str(folder.resolve()))


def load_questions_jsonl(name: str, questions: str, documents: str,
                         extensions: list[str] | None = None) -> Dataset:
    """Loads and validates the dataset; every malformed record is reported with file and line."""
    questions_path = require_file(Path(questions), "questions file")
    docs_folder = Path(documents)
    docs, doc_files = load_documents(docs_folder, list(extensions or [".md", ".markdown", ".txt"]))
    parsed = read_questions(questions_path, {doc.id for doc in docs}, name)
    digest = sha256_of_files(docs_folder, doc_files, extra=[questions_path])
    return Dataset(name=name, documents=tuple(docs), questions=tuple(parsed), sha256=digest,
                   source=str(questions_path.resolve()))


def read_questions(path: Path, doc_ids: set[str], name: str) -> list[Question]:
    """The questions of a questions.jsonl file whose gold documents are among ``doc_ids``.

    Raises:
        DatasetError: naming every malformed record's file, line and field.
    """
    problems = ProblemList()
    parsed = parse_jsonl(path, problems, lambda record, line: _parse_question(record, path, line, problems, doc_ids),
                         "questions")
    problems.raise_if_any(f"dataset '{name}'")
    return parsed


def _parse_question(record: dict, path: Path, line: int, problems: ProblemList,
                    doc_ids: set[str]) -> Question | None:
    before = len(problems.problems)
    values = {key: field_value(record, key, str, path, line, problems) for key in REQUIRED_STR_FIELDS}
    values.update({key: field_value(record, key, str, path, line, problems, required=False)
                   for key in OPTIONAL_STR_FIELDS})
    if values["difficulty"] is not None and values["difficulty"] not in DIFFICULTIES:
        problems.add(path, line, f"field 'difficulty' must be one of {list(DIFFICULTIES)}, "
                                 f"got '{values['difficulty']}'")
    facts = field_value(record, "key_facts", list, path, line, problems, required=False) or []
    for index, fact in enumerate(facts):
        if not isinstance(fact, str) or not fact.strip():
            problems.add(path, line, f"field 'key_facts[{index}]' must be a non-empty string")
    needle = values["needle_doc_id"]
    if needle is not None and needle not in doc_ids:
        problems.add(path, line, f"field 'needle_doc_id': no document '{needle}' in the documents folder")
    # More gold documents than the needle (a question that needs two passages, e.g. from harness synth).
    needles = field_value(record, "needle_doc_ids", list, path, line, problems, required=False) or []
    for index, doc_id in enumerate(needles):
        if not isinstance(doc_id, str) or doc_id not in doc_ids:
            problems.add(path, line, f"field 'needle_doc_ids[{index}]': no document {doc_id!r} in the documents folder")
    criteria = _parse_criteria(record, path, line, problems)
    if len(problems.problems) > before:
        return None
    known = set(REQUIRED_STR_FIELDS) | set(OPTIONAL_STR_FIELDS) | {"key_facts", "answer_criteria", "needle_doc_ids"}
    return Question(
        id=values["id"],
        text=values["question"],
        relevant={doc_id: 1 for doc_id in [*([needle] if needle else []), *needles]},
        key_facts=tuple(facts),
        ground_truth=values["ground_truth"],
        answers=(values["ground_truth"],),
        expected_answer=values["expected_answer"] or values["ground_truth"],
        difficulty=values["difficulty"],
        route=values["route"],
        answer_criteria=criteria,
        metadata={"domain": values["domain"], "source": values["source"],
                  **{k: v for k, v in record.items() if k not in known}},
    )


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
