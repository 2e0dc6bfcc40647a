"""BEIR folder layout: corpus.jsonl, queries.jsonl and qrels/<split>.tsv."""

from __future__ import annotations

from pathlib import Path

from harness.data.records import Dataset, Document, Question
from harness.data.validation import ProblemList, field_value, iter_jsonl, require_file, sha256_of_files

QRELS_HEADER = ("query-id", "corpus-id", "score")


def load_beir(name: str, path: str, split: str = "test") -> Dataset:
    """Loads a BEIR dataset; the questions are the queries judged in ``qrels/<split>.tsv``.

    Document ids and query ids are kept as strings; relevance grades are the qrels' integers.
    """
    root = Path(path)
    corpus_path = require_file(root / "corpus.jsonl", "BEIR corpus")
    queries_path = require_file(root / "queries.jsonl", "BEIR queries")
    qrels_path = require_file(root / "qrels" / f"{split}.tsv", f"BEIR qrels for split '{split}'")
    problems = ProblemList()

    documents = []
    seen_docs: dict[str, int] = {}
    for line, record in iter_jsonl(corpus_path, problems):
        doc_id = _record_id(record, corpus_path, line, problems)
        text = field_value(record, "text", str, corpus_path, line, problems)
        title = field_value(record, "title", str, corpus_path, line, problems, required=False) or ""
        if doc_id is not None and doc_id in seen_docs:
            problems.add(corpus_path, line, f"field '_id': duplicate id '{doc_id}' (first on line {seen_docs[doc_id]})")
        elif doc_id is not None and text is not None:
            seen_docs[doc_id] = line
            documents.append(Document(id=doc_id, text=text, title=title))

    queries: dict[str, str] = {}
    for line, record in iter_jsonl(queries_path, problems):
        query_id = _record_id(record, queries_path, line, problems)
        text = field_value(record, "text", str, queries_path, line, problems)
        if query_id is not None and query_id in queries:
            problems.add(queries_path, line, f"field '_id': duplicate query id '{query_id}'")
        elif query_id is not None and text is not None:
            queries[query_id] = text

    qrels = _read_qrels(qrels_path, problems, queries, {doc.id for doc in documents})
    problems.raise_if_any(f"BEIR dataset '{name}' at {root}")
    questions = tuple(Question(id=qid, text=queries[qid], relevant=rels) for qid, rels in qrels.items())
    digest = sha256_of_files(root, [corpus_path, queries_path, qrels_path])
    return Dataset(name=name, documents=tuple(documents), questions=questions, sha256=digest,
                   source=str(root.resolve()))


def _record_id(record: dict, path: Path, line: int, problems: ProblemList) -> str | None:
    value = field_value(record, "_id", (str, int), path, line, problems)
    return None if value is None else str(value)


def _read_qrels(path: Path, problems: ProblemList, queries: dict[str, str],
                doc_ids: set[str]) -> dict[str, dict[str, int]]:
    qrels: dict[str, dict[str, int]] = {}
    with path.open(encoding="utf-8") as handle:
        for number, raw in enumerate(handle, start=1):
            columns = raw.rstrip("\n").split("\t")
            if number == 1 and tuple(c.strip() for c in columns) == QRELS_HEADER:
                continue
            if not raw.strip():
                continue
            if len(columns) != 3:
                problems.add(path, number, f"expected 3 tab-separated columns {QRELS_HEADER}, got {len(columns)}")
                continue
            query_id, doc_id, score = (c.strip() for c in columns)
            try:
                grade = int(score)
            except ValueError:
                problems.add(path, number, f"column 'score' must be an integer, got '{score}'")
                continue
            if query_id not in queries:
                problems.add(path, number, f"column 'query-id': '{query_id}' is not in queries.jsonl")
            elif doc_id not in doc_ids:
                problems.add(path, number, f"column 'corpus-id': '{doc_id}' is not in corpus.jsonl")
            else:
                qrels.setdefault(query_id, {})[doc_id] = grade
    if not qrels and not problems.problems:
        problems.add(path, None, "no judgements")
    return qrels
