"""Tests for harness.data.beir: the tiny BEIR folder loads, malformed files are named precisely."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from harness.data.beir import load_beir
from harness.data.records import DatasetError

TINY_BEIR = Path(__file__).resolve().parent / "tiny_beir"


@pytest.fixture
def beir_copy(tmp_path: Path) -> Path:
    root = tmp_path / "tiny_beir"
    shutil.copytree(TINY_BEIR, root)
    return root


def load_error(root: Path, split: str = "test") -> str:
    with pytest.raises(DatasetError) as info:
        load_beir("broken", str(root), split=split)
    return str(info.value)


def append(path: Path, text: str) -> None:
    with path.open("a", encoding="utf-8") as handle:
        handle.write(text)


# --- the valid tiny folder --------------------------------------------------------------------


def test_tiny_beir_loads():
    dataset = load_beir("tiny_beir", str(TINY_BEIR))
    assert dataset.name == "tiny_beir"
    assert [doc.id for doc in dataset.documents] == ["d1", "d2", "d3", "d4"]
    assert dataset.documents[0].title == "Cats"
    assert dataset.documents[0].text == "Cats are small domesticated felines that purr."
    assert len(dataset.questions) == 3
    questions = {q.id: q for q in dataset.questions}
    assert questions["q1"].text == "which animals purr"


def test_graded_relevance_kept_including_explicit_zero():
    questions = {q.id: q for q in load_beir("tiny_beir", str(TINY_BEIR)).questions}
    assert questions["q1"].relevant == {"d1": 2, "d3": 1}
    assert questions["q2"].relevant == {"d2": 1}
    assert questions["q3"].relevant == {"d4": 1, "d1": 0}
    assert questions["q3"].key_facts == ()


def test_sha256_stable_and_content_sensitive(beir_copy):
    first = load_beir("a", str(TINY_BEIR)).sha256
    assert first == load_beir("b", str(TINY_BEIR)).sha256 == load_beir("c", str(beir_copy)).sha256
    append(beir_copy / "corpus.jsonl", '{"_id": "d5", "text": "Fish swim."}\n')
    assert load_beir("c", str(beir_copy)).sha256 != first


def test_integer_ids_become_strings(tmp_path):
    (tmp_path / "qrels").mkdir()
    (tmp_path / "corpus.jsonl").write_text('{"_id": 7, "text": "seven"}\n', encoding="utf-8")
    (tmp_path / "queries.jsonl").write_text('{"_id": 1, "text": "which number"}\n', encoding="utf-8")
    (tmp_path / "qrels" / "test.tsv").write_text("1\t7\t1\n", encoding="utf-8")  # no header line
    dataset = load_beir("ints", str(tmp_path))
    assert dataset.documents[0].id == "7"
    assert dataset.questions[0].id == "1"
    assert dataset.questions[0].relevant == {"7": 1}


def test_queries_without_judgements_are_not_questions(beir_copy):
    append(beir_copy / "queries.jsonl", '{"_id": "q4", "text": "unjudged"}\n')
    assert {q.id for q in load_beir("x", str(beir_copy)).questions} == {"q1", "q2", "q3"}


# --- broken folders ---------------------------------------------------------------------------


def test_bad_corpus_json_line(beir_copy):
    path = beir_copy / "corpus.jsonl"
    append(path, '{"_id": "d5", "text": \n')
    message = load_error(beir_copy)
    assert f"{path}:5" in message and "corpus.jsonl:5" in message
    assert "not valid JSON" in message


def test_corpus_record_missing_text(beir_copy):
    path = beir_copy / "corpus.jsonl"
    append(path, '{"_id": "d5", "title": "No text"}\n')
    message = load_error(beir_copy)
    assert f"{path}:5: field 'text' is missing" in message


def test_corpus_record_missing_id(beir_copy):
    path = beir_copy / "corpus.jsonl"
    append(path, '{"text": "anonymous"}\n')
    assert f"{path}:5: field '_id' is missing" in load_error(beir_copy)


def test_query_with_non_string_text(beir_copy):
    path = beir_copy / "queries.jsonl"
    append(path, '{"_id": "q4", "text": ["a", "b"]}\n')
    message = load_error(beir_copy)
    assert f"{path}:4" in message and "field 'text' must be str" in message


def test_qrels_with_two_columns(beir_copy):
    path = beir_copy / "qrels" / "test.tsv"
    append(path, "q2\td2\n")
    message = load_error(beir_copy)
    assert f"{path}:7" in message and "test.tsv:7" in message
    assert "3 tab-separated columns" in message and "got 2" in message
    assert "score" in message


def test_qrels_with_non_integer_score(beir_copy):
    path = beir_copy / "qrels" / "test.tsv"
    append(path, "q2\td1\t0.5\n")
    message = load_error(beir_copy)
    assert f"{path}:7: column 'score' must be an integer, got '0.5'" in message


def test_qrels_with_unknown_query_id(beir_copy):
    path = beir_copy / "qrels" / "test.tsv"
    append(path, "q99\td1\t1\n")
    message = load_error(beir_copy)
    assert f"{path}:7: column 'query-id'" in message and "'q99'" in message


def test_qrels_with_unknown_corpus_id(beir_copy):
    path = beir_copy / "qrels" / "test.tsv"
    append(path, "q1\td99\t1\n")
    message = load_error(beir_copy)
    assert f"{path}:7: column 'corpus-id'" in message and "'d99'" in message


def test_missing_qrels_split_file(beir_copy):
    message = load_error(beir_copy, split="dev")
    assert "split 'dev'" in message
    assert str(beir_copy / "qrels" / "dev.tsv") in message


@pytest.mark.parametrize("name", ["corpus.jsonl", "queries.jsonl"])
def test_missing_corpus_or_queries(beir_copy, name):
    (beir_copy / name).unlink()
    message = load_error(beir_copy)
    assert "not found" in message and str(beir_copy / name) in message


def test_problems_in_several_files_reported_together(beir_copy):
    corpus, qrels = beir_copy / "corpus.jsonl", beir_copy / "qrels" / "test.tsv"
    append(corpus, '{"_id": "d5"}\n')
    append(qrels, "q1\td1\thigh\nq1\n")
    message = load_error(beir_copy)
    assert "(3 problem(s))" in message
    assert f"{corpus}:5: field 'text'" in message
    assert f"{qrels}:7: column 'score'" in message
    assert f"{qrels}:8: expected 3" in message


def test_qrels_without_any_judgement(beir_copy):
    path = beir_copy / "qrels" / "test.tsv"
    path.write_text("query-id\tcorpus-id\tscore\n", encoding="utf-8")
    message = load_error(beir_copy)
    assert str(path) in message and "no judgements" in message
