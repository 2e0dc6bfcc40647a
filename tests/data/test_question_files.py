"""Minimal question files: only a question (and an answer under any usual name), other tools'
exports as they are, four file formats, a field mapping, gold passages matched to documents."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from harness.data.questions_jsonl import load_questions_jsonl, question_id
from harness.data.records import DatasetError

PARIS = "Paris is the capital and largest city of France. It lies on the Seine."
BERLIN = "Berlin is the capital of Germany and its largest city."


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "france.md").write_text(f"# France\n\n{PARIS}\n", encoding="utf-8")
    (folder / "germany.md").write_text(f"# Germany\n\n{BERLIN}\n", encoding="utf-8")
    return folder


def write_jsonl(path: Path, records: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def load(path: Path, docs: Path, **options):
    return load_questions_jsonl("mine", str(path), str(docs), **options)


def error(path: Path, docs: Path, **options) -> str:
    with pytest.raises(DatasetError) as info:
        load(path, docs, **options)
    return str(info.value)


def test_the_one_line_file_of_the_issue(tmp_path, docs):
    path = write_jsonl(tmp_path / "q.jsonl", [{"id": "q1", "question": "What is the capital of France?",
                                               "answer": "Paris"}])
    (question,) = load(path, docs).questions
    assert (question.id, question.text, question.answers) == ("q1", "What is the capital of France?", ("Paris",))
    assert (question.ground_truth, question.expected_answer) == ("Paris", "Paris")
    assert question.relevant == {} and question.metadata == {} and question.difficulty is None


def test_a_question_alone_gets_a_stable_id(tmp_path, docs):
    path = write_jsonl(tmp_path / "q.jsonl", [{"question": "What is the capital of France?"},
                                              {"question": "  What is the capital of Germany?"}])
    first, second = load(path, docs).questions
    assert first.id == question_id("What is the capital of France?") == "q-115049a29853"
    assert second.id == question_id("What is the capital of Germany?") and second.answers == ()


def test_the_same_question_twice_without_ids_is_two_questions_merged_or_refused(tmp_path, docs, caplog):
    path = tmp_path / "ragas.csv"  # a RAGAS export: no id column
    path.write_text("user_input,reference\nCapital of France?,Paris\nWhy?,Because\nCapital of France?,paris city\n"
                    "Capital of France?,Paris\n", encoding="utf-8")
    kept = load(path, docs).questions  # dataset.duplicates=keep, the default
    base = question_id("Capital of France?")
    assert [q.id for q in kept] == [base, question_id("Why?"), f"{base}-2", f"{base}-3"]
    assert [q.answers for q in kept if q.id.startswith(base)] == [("Paris",), ("paris city",), ("Paris",)]
    with caplog.at_level("WARNING", logger="harness.data.questions_jsonl"):
        merged = load(path, docs, duplicates="merge").questions
    assert [q.id for q in merged] == [base, question_id("Why?")] and merged[0].answers == ("Paris", "paris city")
    assert "2 repeated question(s) without an id merged into the first" in caplog.text and "line 4 into line 2" in caplog.text
    message = error(path, docs, duplicates="error")
    assert f"{path}:4: the question repeats line 2's, and neither has an id" in message
    assert "dataset.duplicates=keep" in message and "field 'id'" not in message
    assert "duplicates must be one of ['keep', 'merge', 'error']" in error(path, docs, duplicates="drop")


def test_an_id_written_twice_is_an_error_naming_both_lines(tmp_path, docs):
    path = write_jsonl(tmp_path / "q.jsonl", [{"id": "a", "question": "Why?"}, {"id": "a", "question": "How?"}])
    assert f"{path}:2: field 'id': duplicate id 'a' (first on line 1)" in error(path, docs)


@pytest.mark.parametrize("name", ["answer", "answers", "ground_truth", "reference", "expected_response",
                                  "expected_output", "golden_answers"])
def test_every_usual_answer_name(tmp_path, docs, name):
    path = write_jsonl(tmp_path / "q.jsonl", [{"question": "Capital of France?", name: "Paris"},
                                              {"question": "Capital of Germany?", name: ["Berlin", "berlin"]}])
    first, second = load(path, docs).questions
    assert first.answers == ("Paris",) and second.answers == ("Berlin", "berlin")


def test_gold_document_ids_under_their_names(tmp_path, docs):
    path = write_jsonl(tmp_path / "q.jsonl", [
        {"question": "Capital of France?", "answer": "Paris", "gold_doc_ids": ["france"]},
        {"question": "Capital of Germany?", "answer": "Berlin", "needle_doc_id": "germany"},
        {"question": "Both?", "needle_doc_id": "germany", "needle_doc_ids": ["france"]}])
    assert [q.relevant for q in load(path, docs).questions] == [{"france": 1}, {"germany": 1},
                                                                 {"germany": 1, "france": 1}]


def test_an_unknown_gold_document_is_named_with_file_and_line(tmp_path, docs):
    path = write_jsonl(tmp_path / "q.jsonl", [{"question": "A?"}, {"question": "B?", "gold_doc_ids": ["spain"]}])
    assert f"{path}:2: field 'gold_doc_ids[0]': no document 'spain' in the documents folder" in error(path, docs)


def test_a_ragas_export_loads_as_it_is(tmp_path, docs):
    path = write_jsonl(tmp_path / "ragas.jsonl", [{
        "user_input": "What is the capital of France?", "reference": "Paris",
        "reference_contexts": ["paris is the capital and largest city   of France."],
        "retrieved_contexts": [BERLIN], "response": "Berlin"}])
    (question,) = load(path, docs).questions
    assert (question.text, question.answers, question.relevant) == ("What is the capital of France?", ("Paris",),
                                                                     {"france": 1})
    # the system's own contexts and response are kept, never read as gold
    assert question.metadata == {"retrieved_contexts": [BERLIN], "response": "Berlin"}


def test_a_deepeval_golden_loads_as_it_is(tmp_path, docs):
    path = tmp_path / "goldens.json"
    path.write_text(json.dumps([{"input": "Capital of Germany?", "expected_output": "Berlin",
                                 "context": [BERLIN]}]), encoding="utf-8")
    (question,) = load(path, docs).questions
    assert (question.text, question.answers, question.relevant) == ("Capital of Germany?", ("Berlin",),
                                                                     {"germany": 1})


def test_an_mlflow_evaluation_dataset_record_loads_as_it_is(tmp_path, docs):
    path = write_jsonl(tmp_path / "mlflow.jsonl", [
        {"inputs": {"question": "Capital of France?"},
         "expectations": {"expected_response": "Paris", "expected_facts": ["Paris"],
                          "expected_retrieved_context": [{"doc_uri": "france", "content": PARIS}]}},
        {"inputs": {"question": "Capital of Germany?"},
         "expectations": {"expected_response": "Berlin",
                          "expected_retrieved_context": [{"doc_uri": "https://x/de", "content": BERLIN}]}}])
    first, second = load(path, docs).questions
    assert (first.answers, first.key_facts, first.relevant) == (("Paris",), ("Paris",), {"france": 1})
    assert second.relevant == {"germany": 1}  # matched by its content when the uri is not a document


def test_a_passage_with_small_edits_matches_and_one_no_document_holds_is_a_problem(tmp_path, docs):
    edited = "Paris is the capital and biggest city of France; it lies on the Seine."
    path = write_jsonl(tmp_path / "q.jsonl", [{"question": "A?", "reference_contexts": [edited]},
                                              {"question": "B?", "reference_contexts": ["Madrid is in Spain."]}])
    message = error(path, docs)
    assert f"{path}:2: field 'reference_contexts[0]': no document holds the passage 'Madrid is in Spain.'" in message
    assert f"{path}:1" not in message
    write_jsonl(path, [{"question": "A?", "reference_contexts": [edited]}])
    assert load(path, docs).questions[0].relevant == {"france": 1}
    assert error(path, docs, passage_overlap=1.0).count("problem") == 1


def test_csv_with_a_list_cell_and_errors_by_line(tmp_path, docs):
    path = tmp_path / "q.csv"
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["question", "ground_truth", "gold_doc_ids"])
        writer.writerow(["Capital of France?", "Paris", '["france"]'])
        writer.writerow(["Capital of Germany?", "Berlin", "germany"])
    first, second = load(path, docs).questions
    assert (first.answers, first.relevant, second.relevant) == (("Paris",), {"france": 1}, {"germany": 1})
    with path.open("a", newline="", encoding="utf-8") as handle:
        csv.writer(handle).writerow(["", "Rome", ""])
    assert f"{path}:4: field 'question' is missing" in error(path, docs)


def test_parquet(tmp_path, docs):
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = tmp_path / "q.parquet"
    pq.write_table(pa.table({"question": ["Capital of France?", "Capital of Germany?"],
                             "golden_answers": [["Paris"], ["Berlin", "Berlin, Germany"]],
                             "needle_doc_id": ["france", None]}), path)
    first, second = load(path, docs).questions
    assert (first.answers, first.relevant) == (("Paris",), {"france": 1})
    assert (second.answers, second.relevant) == (("Berlin", "Berlin, Germany"), {})


def test_a_json_list_names_its_bad_items(tmp_path, docs):
    path = tmp_path / "q.json"
    path.write_text(json.dumps([{"question": "A?"}, "B?", {"question": 3}]), encoding="utf-8")
    message = error(path, docs)
    assert f"{path}:2: item 2 of the list: expected a JSON object, got str" in message
    assert f"{path}:3: field 'question' must be str, got int" in message


def test_columns_mapped_in_the_config(tmp_path, docs):
    path = write_jsonl(tmp_path / "q.jsonl", [{"prompt": {"text": "Capital of France?"}, "gold": "Paris",
                                               "key": "f1", "sources": ["france"]}])
    fields = {"question": "prompt.text", "answers": "gold", "id": "key", "relevant": "sources"}
    (question,) = load(path, docs, fields=fields).questions
    assert (question.id, question.text, question.answers, question.relevant) == (
        "f1", "Capital of France?", ("Paris",), {"france": 1})
    assert question.metadata == {}
    with pytest.raises(DatasetError, match=r"fields \['answer'\] are unknown"):
        load(path, docs, fields={"answer": "gold"})


def test_required_fields_keep_the_richer_schema(tmp_path, docs):
    path = write_jsonl(tmp_path / "q.jsonl", [{"id": "q1", "question": "A?", "answer": "Paris"}])
    message = error(path, docs, required=["id", "domain", "question", "answers"])
    assert f"{path}:1: field 'domain' is missing" in message and "(1 problem(s))" in message


def test_the_demo_requires_its_full_schema(compose, tmp_path):
    record = {"id": "d1", "question": "A?", "ground_truth": "x", "domain": "d", "difficulty": "easy"}
    path = write_jsonl(tmp_path / "q.jsonl", [record])
    from hydra.utils import instantiate

    cfg = compose([f"dataset.questions={path}"])
    with pytest.raises(Exception, match=f"{path}:1: field 'source' is missing"):
        instantiate(cfg.dataset)


def test_a_column_no_record_has_is_one_message_naming_the_columns_found_and_the_field_to_set(tmp_path, docs):
    path = tmp_path / "q.csv"
    path.write_text("prompt,reference\n" + "".join(f"Question {i}?,Answer {i}\n" for i in range(300)), encoding="utf-8")
    message = error(path, docs)
    assert "(1 problem(s))" in message and "more" not in message
    assert f"{path}: no record has field 'question'" in message
    assert "the columns found are ['prompt', 'reference']" in message and "dataset.fields.question=<column>" in message
    assert len(load(path, docs, fields={"question": "prompt"}).questions) == 300


def test_a_broken_json_line_says_where_once(tmp_path, docs):
    path = tmp_path / "q.jsonl"
    path.write_text('{"question": "Why?', encoding="utf-8")  # no newline: the string never ends
    message = error(path, docs)
    assert "not valid JSON (Unterminated string starting at column 14)" in message and "at at" not in message
