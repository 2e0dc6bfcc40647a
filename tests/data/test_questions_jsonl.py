"""Tests for harness.data.questions_jsonl: the tiny dataset loads, broken files fail loudly."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from harness.data.questions_jsonl import load_questions_jsonl
from harness.data.records import Dataset, DatasetError

TINY = Path(__file__).resolve().parent / "tiny"


def load(root: Path, name: str = "tiny") -> Dataset:
    return load_questions_jsonl(name=name, questions=str(root / "questions.jsonl"), documents=str(root / "docs"))


def good_record(**overrides) -> dict:
    record = {
        "id": "q1", "domain": "tiny", "difficulty": "easy", "question": "When do tokens expire?",
        "ground_truth": "3600 seconds", "source": "auth", "expected_answer": "After 3600 seconds.",
        "key_facts": ["3600 seconds"], "needle_doc_id": "auth", "route": "docs",
    }
    record.update(overrides)
    return record


@pytest.fixture
def tiny_copy(tmp_path: Path) -> Path:
    """A writable copy of tests/data/tiny."""
    root = tmp_path / "tiny"
    shutil.copytree(TINY, root)
    return root


def write_questions(root: Path, lines: list) -> Path:
    """Writes ``lines`` (dicts are JSON-encoded, strings written verbatim) as questions.jsonl."""
    path = root / "questions.jsonl"
    text = "".join((json.dumps(line) if not isinstance(line, str) else line) + "\n" for line in lines)
    path.write_text(text, encoding="utf-8")
    return path


def load_error(root: Path) -> str:
    with pytest.raises(DatasetError) as info:
        load(root)
    return str(info.value)


# --- the valid tiny dataset -------------------------------------------------------------------


def test_tiny_loads_questions_and_documents():
    dataset = load(TINY)
    assert dataset.name == "tiny"
    assert [q.id for q in dataset.questions] == ["t1", "t2", "t3", "t4"]
    assert dataset.document_ids() == {"auth", "cache", "database", "limits"}
    titles = {doc.id: doc.title for doc in dataset.documents}
    assert titles == {"auth": "Authentication", "cache": "Caching", "database": "Database",
                      "limits": "Rate limits"}


def test_tiny_question_fields():
    questions = {q.id: q for q in load(TINY).questions}
    t2 = questions["t2"]
    assert t2.text == "How many connections does the PgBouncer pool hold?"
    assert t2.relevant == {"database": 1}
    assert t2.key_facts == ("100 connections", "per region")
    assert isinstance(t2.key_facts, tuple)
    assert t2.ground_truth == "100 connections"
    assert t2.expected_answer == "The pool holds 100 connections per region."
    assert t2.difficulty == "medium"
    assert t2.route == "docs"
    assert t2.metadata == {"domain": "tiny", "source": "database"}
    assert questions["t1"].relevant == {"auth": 1}
    assert questions["t4"].difficulty == "hard"


def test_expected_answer_defaults_to_ground_truth_and_extra_fields_kept(tiny_copy):
    record = good_record(extra_note="kept")
    del record["expected_answer"]
    write_questions(tiny_copy, [record])
    (question,) = load(tiny_copy).questions
    assert question.expected_answer == "3600 seconds"
    assert question.metadata == {"domain": "tiny", "source": "auth", "extra_note": "kept"}


def test_sha256_stable_across_loads():
    first, second = load(TINY), load(TINY)
    assert first.sha256 == second.sha256
    assert len(first.sha256) == 64


def test_sha256_changes_when_a_document_changes(tiny_copy):
    before = load(tiny_copy).sha256
    assert before == load(TINY).sha256  # the digest reads relative paths, not the location
    doc = tiny_copy / "docs" / "cache.md"
    doc.write_text(doc.read_text(encoding="utf-8") + "\nOne more line.\n", encoding="utf-8")
    assert load(tiny_copy).sha256 != before


def test_sha256_changes_when_questions_change(tiny_copy):
    before = load(tiny_copy).sha256
    path = tiny_copy / "questions.jsonl"
    path.write_text(path.read_text(encoding="utf-8").replace("When do tokens expire?", "When?"),
                    encoding="utf-8")
    assert load(tiny_copy).sha256 != before


def test_blank_lines_are_skipped(tiny_copy):
    write_questions(tiny_copy, ["", good_record(), "   "])
    assert [q.id for q in load(tiny_copy).questions] == ["q1"]


# --- broken questions files -------------------------------------------------------------------


def assert_names(message: str, path: Path, line: int, *fragments: str) -> None:
    assert str(path) in message, message
    assert f"questions.jsonl:{line}" in message, message
    for fragment in fragments:
        assert fragment in message, message


def test_invalid_json_line(tiny_copy):
    path = write_questions(tiny_copy, [good_record(id="a"), good_record(id="b"), '{"id": "c", "question": '])
    assert_names(load_error(tiny_copy), path, 3, "not valid JSON")


def test_json_array_instead_of_object(tiny_copy):
    path = write_questions(tiny_copy, [good_record(id="a"), good_record(id="b"), ["id", "c"]])
    assert_names(load_error(tiny_copy), path, 3, "expected a JSON object", "list")


def test_missing_question(tiny_copy):
    record = good_record(id="c")
    del record["question"]
    path = write_questions(tiny_copy, [good_record(id="a"), good_record(id="b"), record])
    assert_names(load_error(tiny_copy), path, 3, "'question'", "missing")


@pytest.mark.parametrize("difficulty", ["trivial", "Easy", "HARD"])
def test_difficulty_outside_the_three_levels(tiny_copy, difficulty):
    path = write_questions(tiny_copy, [good_record(id="a"), good_record(id="b"),
                                       good_record(id="c", difficulty=difficulty)])
    message = load_error(tiny_copy)
    assert_names(message, path, 3, "'difficulty'", difficulty)
    assert "easy" in message and "medium" in message and "hard" in message


def test_key_facts_not_a_list(tiny_copy):
    path = write_questions(tiny_copy, [good_record(id="a"), good_record(id="b"),
                                       good_record(id="c", key_facts="3600 seconds")])
    assert_names(load_error(tiny_copy), path, 3, "'key_facts'", "list")


@pytest.mark.parametrize("bad_fact", [42, None, "", "   "])
def test_key_facts_with_a_non_string_or_empty_entry(tiny_copy, bad_fact):
    path = write_questions(tiny_copy, [good_record(id="a"), good_record(id="b"),
                                       good_record(id="c", key_facts=["3600 seconds", bad_fact])])
    assert_names(load_error(tiny_copy), path, 3, "key_facts[1]")


def test_needle_naming_a_missing_document(tiny_copy):
    path = write_questions(tiny_copy, [good_record(id="a"), good_record(id="b"),
                                       good_record(id="c", needle_doc_id="nowhere")])
    assert_names(load_error(tiny_copy), path, 3, "'needle_doc_id'", "nowhere")


def test_duplicate_id(tiny_copy):
    path = write_questions(tiny_copy, [good_record(id="a"), good_record(id="b"), good_record(id="a")])
    message = load_error(tiny_copy)
    assert_names(message, path, 3, "'id'", "duplicate", "line 1")
    assert "questions.jsonl:1:" not in message  # the first occurrence is fine


def test_id_of_the_wrong_type(tiny_copy):
    path = write_questions(tiny_copy, [good_record(id="a"), good_record(id="b"), good_record(id=3)])
    assert_names(load_error(tiny_copy), path, 3, "'id'", "must be str", "int")


def test_boolean_is_not_a_string(tiny_copy):
    path = write_questions(tiny_copy, [good_record(id="a"), good_record(id="b"), good_record(id="c", source=True)])
    assert_names(load_error(tiny_copy), path, 3, "'source'", "bool")


@pytest.mark.parametrize("field", ["question", "ground_truth", "id"])
@pytest.mark.parametrize("value", ["", "  \t"])
def test_empty_required_string(tiny_copy, field, value):
    path = write_questions(tiny_copy, [good_record(id="a"), good_record(id="b"), good_record(**{"id": "c", field: value})])
    assert_names(load_error(tiny_copy), path, 3, f"'{field}'", "empty")


def test_missing_questions_file(tmp_path):
    shutil.copytree(TINY / "docs", tmp_path / "docs")
    with pytest.raises(DatasetError) as info:
        load(tmp_path)
    message = str(info.value)
    assert "questions file not found" in message
    assert str(tmp_path / "questions.jsonl") in message


def test_missing_documents_folder(tmp_path):
    shutil.copy(TINY / "questions.jsonl", tmp_path / "questions.jsonl")
    with pytest.raises(DatasetError) as info:
        load(tmp_path)
    message = str(info.value)
    assert "documents folder not found" in message
    assert str(tmp_path / "docs") in message


def test_documents_folder_without_documents(tmp_path):
    shutil.copy(TINY / "questions.jsonl", tmp_path / "questions.jsonl")
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "image.png").write_bytes(b"\x89PNG")
    with pytest.raises(DatasetError, match="no documents"):
        load(tmp_path)


def test_empty_questions_file(tiny_copy):
    path = write_questions(tiny_copy, [])
    message = load_error(tiny_copy)
    assert str(path) in message and "no questions" in message


def test_several_problems_reported_in_one_error(tiny_copy):
    missing_question = good_record(id="b")
    del missing_question["question"]
    path = write_questions(tiny_copy, [
        good_record(id="a", difficulty="impossible"),
        missing_question,
        "not json",
        good_record(id="d", key_facts=[1], needle_doc_id="ghost"),
        good_record(id="e"),
    ])
    message = load_error(tiny_copy)
    assert "(5 problem(s))" in message
    assert f"{path}:1: field 'difficulty'" in message
    assert f"{path}:2: field 'question' is missing" in message
    assert f"{path}:3: not valid JSON" in message
    assert f"{path}:4: field 'key_facts[0]'" in message
    assert f"{path}:4: field 'needle_doc_id'" in message
    assert "questions.jsonl:5" not in message


def test_long_problem_lists_are_summarised(tiny_copy):
    write_questions(tiny_copy, [good_record(id=f"q{i}", difficulty="x") for i in range(25)])
    message = load_error(tiny_copy)
    assert "(25 problem(s))" in message
    assert "... and 5 more" in message


# --- seed 001's answer_criteria ----------------------------------------------------------------


def test_answer_criteria_parsed(tiny_copy):
    criteria = {"clarification_expected": True, "forbidden_keywords": ["sunny"], "min_semantic_similarity": 0.6}
    write_questions(tiny_copy, [good_record(answer_criteria=criteria), good_record(id="q2")])
    first, second = load(tiny_copy).questions
    assert first.answer_criteria.clarification_expected and not first.answer_criteria.out_of_scope
    assert first.answer_criteria.forbidden_keywords == ("sunny",)
    assert first.answer_criteria.min_semantic_similarity == 0.6
    assert "answer_criteria" not in first.metadata
    assert second.answer_criteria == type(first.answer_criteria)()


@pytest.mark.parametrize("criteria, expected", [
    ({"out_of_scope": "yes"}, "field 'answer_criteria.out_of_scope' must be bool, got str"),
    ({"forbidden_keywords": "sunny"}, "field 'answer_criteria.forbidden_keywords' must be list"),
    ({"forbidden_keywords": ["ok", ""]}, "'answer_criteria.forbidden_keywords[1]' must be a non-empty string"),
    ({"min_semantic_similarity": 1.5}, "'answer_criteria.min_semantic_similarity' must be in [0, 1], got 1.5"),
    ({"min_similarity": 0.5}, "'answer_criteria.min_similarity' is unknown"),
    ({"out_of_scope": True, "clarification_expected": True}, "are exclusive"),
    ("strict", "field 'answer_criteria' must be dict, got str"),
])
def test_bad_answer_criteria_name_file_line_and_key(tiny_copy, criteria, expected):
    path = write_questions(tiny_copy, [good_record(id="a"), good_record(id="b", answer_criteria=criteria)])
    assert_names(load_error(tiny_copy), path, 2, expected)


def test_a_non_utf8_byte_is_reported_with_file_and_line(tiny_copy):
    path = write_questions(tiny_copy, [good_record(), good_record(id="q2")])
    lines = path.read_bytes().splitlines(keepends=True)
    lines[1] = lines[1].replace(b"When do", b"When \xe9 do")  # Latin-1 'e acute' in a UTF-8 file
    path.write_bytes(b"".join(lines))
    message = load_error(tiny_copy)
    assert f"{path}:2: not valid UTF-8 (byte 0xe9 at column " in message
    assert ":1:" not in message
