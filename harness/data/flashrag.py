"""FlashRAG's format: a questions JSONL (``id``, ``question``, ``golden_answers``, optional
``metadata``) and a corpus JSONL (``id``, ``contents`` whose first line is the title).

FlashRAG ships 38 benchmarks (NQ, TriviaQA, HotpotQA, PopQA, 2Wiki, MuSiQue, ASQA...) and its
Wikipedia corpora in this form; every golden answer is an accepted answer, so EM, F1 and ROUGE-L
take the best over them. The questions carry no gold documents: retrieval is judged through the
answers.
"""

from __future__ import annotations

from pathlib import Path

from harness.data.records import Dataset, Document, Question
from harness.data.subset import check_subset, select
from harness.data.validation import ProblemList, field_value, parse_jsonl, require_file, sha256_of_files

KNOWN_QUESTION_FIELDS = ("id", "question", "golden_answers", "metadata")


def split_contents(contents: str) -> tuple[str, str]:
    """(title, text) of a FlashRAG ``contents``: the first line is the title, the rest the text.

    The DPR Wikipedia dumps FlashRAG redistributes quote their titles; the quotes are dropped. A
    single line has no title.

    Example:
        >>> split_contents('"Aaron"\\nAaron is a prophet.')
        ('Aaron', 'Aaron is a prophet.')
        >>> split_contents("no title here")
        ('', 'no title here')
    """
    title, newline, text = contents.partition("\n")
    if not newline:
        return "", contents
    title = title.strip()
    if len(title) >= 2 and title[0] == title[-1] == '"':
        title = title[1:-1]
    return title, text.strip()


def record_id(record: dict, path: Path, line: int, problems: ProblemList) -> str | None:
    """``id`` as a string (FlashRAG corpora number their passages, some as integers)."""
    value = field_value(record, "id", (str, int), path, line, problems)
    return None if value is None else str(value)


def load_flashrag_corpus(path: Path, problems: ProblemList) -> list[Document]:
    """Every passage of a FlashRAG corpus file; malformed lines become problems."""
    def parse(record: dict, line: int) -> Document | None:
        doc_id = record_id(record, path, line, problems)
        contents = field_value(record, "contents", str, path, line, problems)
        if doc_id is None or contents is None:
            return None
        title, text = split_contents(contents)
        return Document(id=doc_id, text=text, title=title)

    return parse_jsonl(path, problems, parse, "passages")


def load_flashrag(name: str, questions: str, corpus: str, limit: int | None = None,
                  sample: int | None = None, seed: int = 0) -> Dataset:
    """Loads and validates a FlashRAG question file and its corpus.

    Args:
        name: the dataset's name in results.
        questions: the questions JSONL (e.g. ``nq/test.jsonl`` of FlashRAG's datasets).
        corpus: the corpus JSONL (e.g. ``wiki18_100w.jsonl``).
        limit: keep only the first ``limit`` questions (null: all).
        sample: keep ``sample`` questions drawn with ``seed`` (null: all).
        seed: the sample's seed.

    Every line of both files is checked before anything runs; the error lists each problem as
    ``file:line: field '...': ...``. ``sha256`` covers both files, whatever the subset.
    """
    check_subset(limit, sample)
    questions_path = require_file(Path(questions), "FlashRAG questions file")
    corpus_path = require_file(Path(corpus), "FlashRAG corpus file")
    problems = ProblemList()
    parsed = parse_jsonl(questions_path, problems,
                         lambda record, line: _parse_question(record, questions_path, line, problems), "questions")
    problems.raise_if_any(f"FlashRAG questions of dataset '{name}'")  # before reading a large corpus
    documents = load_flashrag_corpus(corpus_path, problems)
    problems.raise_if_any(f"FlashRAG corpus of dataset '{name}'")
    digest = sha256_of_files(corpus_path.parent, [], extra=[questions_path, corpus_path])
    return Dataset(name=name, documents=tuple(documents), questions=tuple(select(parsed, limit, sample, seed)),
                   sha256=digest, source=str(questions_path.resolve()))


def _parse_question(record: dict, path: Path, line: int, problems: ProblemList) -> Question | None:
    before = len(problems.problems)
    qid = record_id(record, path, line, problems)
    text = field_value(record, "question", str, path, line, problems)
    golds = field_value(record, "golden_answers", list, path, line, problems)
    metadata = field_value(record, "metadata", dict, path, line, problems, required=False) or {}
    answers: list[str] = []
    for index, answer in enumerate(golds or []):
        if not isinstance(answer, str) or not answer.strip():
            problems.add(path, line, f"field 'golden_answers[{index}]' must be a non-empty string, got {answer!r}")
        elif answer.strip() not in answers:
            answers.append(answer.strip())
    if golds is not None and not golds:
        problems.add(path, line, "field 'golden_answers' is empty")
    if len(problems.problems) > before:
        return None
    extra = {key: value for key, value in record.items() if key not in KNOWN_QUESTION_FIELDS}
    return Question(id=qid, text=text.strip(), ground_truth=answers[0], answers=tuple(answers),
                    expected_answer=answers[0], metadata={**metadata, **extra})
