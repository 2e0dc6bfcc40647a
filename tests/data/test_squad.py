"""Tests for harness.data.squad: the tiny SQuAD v2.0 file loads, malformed files name the JSON path."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from harness.data.records import DatasetError
from harness.data.squad import load_squad, slug

TINY_SQUAD = Path(__file__).resolve().parent / "squad_tiny.json"


@pytest.fixture
def tiny() -> dict:
    return json.loads(TINY_SQUAD.read_text(encoding="utf-8"))


def write(tmp_path: Path, data) -> Path:
    path = tmp_path / "squad.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def load_error(path: Path) -> str:
    with pytest.raises(DatasetError) as info:
        load_squad("broken", str(path))
    return str(info.value)


# --- the valid tiny file ----------------------------------------------------------------------


def test_paragraphs_become_documents():
    dataset = load_squad("squad_tiny", str(TINY_SQUAD))
    assert dataset.name == "squad_tiny"
    assert [doc.id for doc in dataset.documents] == [
        "lighthouse_keeping_0", "lighthouse_keeping_1", "sourdough_bread_0", "sourdough_bread_1"]
    first = dataset.documents[0]
    assert first.title == "Lighthouse_keeping"
    assert first.text.startswith("Lighthouse keepers tended their lamps")
    assert dataset.documents[3].title == "Sourdough bread"


def test_questions_keep_every_gold_answer_deduplicated_in_order():
    questions = {q.id: q for q in load_squad("t", str(TINY_SQUAD)).questions}
    assert len(questions) == 8  # lighthouse: 3 + 2 questions, sourdough: 2 + 1
    wick = questions["lh-wick"]
    assert wick.text == "How often did a keeper trim the wick?"
    assert wick.answers == ("every four hours", "four hours")
    assert wick.ground_truth == "every four hours"
    assert wick.relevant == {"lighthouse_keeping_0": 1}
    assert wick.difficulty is None
    assert wick.metadata == {"title": "Lighthouse_keeping"}
    # A trailing space does not make a second answer.
    assert questions["sd-microbes"].answers == ("wild yeast and lactic acid bacteria",)
    assert questions["sd-acids"].answers == ("lactic and acetic acids", "lactic and acetic")
    assert questions["sd-fridge"].relevant == {"sourdough_bread_1": 1}
    assert [q.id for q in load_squad("t", str(TINY_SQUAD)).questions] == [
        "lh-wick", "lh-inventor", "lh-year", "lh-staff", "lh-first-automated", "sd-microbes", "sd-acids", "sd-fridge"]


def test_unanswerable_v2_question_is_kept():
    questions = {q.id: q for q in load_squad("t", str(TINY_SQUAD)).questions}
    impossible = questions["lh-first-automated"]
    assert impossible.answers == ()
    assert impossible.ground_truth is None
    assert impossible.metadata == {"title": "Lighthouse_keeping", "is_impossible": True}
    assert impossible.relevant == {"lighthouse_keeping_1": 1}


def test_articles_as_documents():
    dataset = load_squad("t", str(TINY_SQUAD), documents="articles")
    assert [doc.id for doc in dataset.documents] == ["lighthouse_keeping", "sourdough_bread"]
    lighthouse = dataset.documents[0]
    assert lighthouse.text.count("\n\n") == 1 and "Automation reached" in lighthouse.text
    questions = {q.id: q for q in dataset.questions}
    assert questions["lh-staff"].relevant == {"lighthouse_keeping": 1}


def test_every_relevant_document_exists():
    for unit in ("paragraphs", "articles"):
        dataset = load_squad("t", str(TINY_SQUAD), documents=unit)
        assert all(set(q.relevant) <= dataset.document_ids() for q in dataset.questions)


def test_v11_file_without_is_impossible(tmp_path, tiny):
    for article in tiny["data"]:
        for paragraph in article["paragraphs"]:
            paragraph["qas"] = [qa for qa in paragraph["qas"] if not qa.get("is_impossible")]
            for qa in paragraph["qas"]:
                qa.pop("is_impossible", None)
    tiny["version"] = "1.1"
    dataset = load_squad("v11", str(write(tmp_path, tiny)))
    assert len(dataset.questions) == 7
    assert not any("is_impossible" in q.metadata for q in dataset.questions)


def test_sha256_stable_and_content_sensitive(tmp_path, tiny):
    first = load_squad("a", str(TINY_SQUAD)).sha256
    copied = tmp_path / TINY_SQUAD.name
    copied.write_bytes(TINY_SQUAD.read_bytes())
    assert load_squad("b", str(copied)).sha256 == first
    tiny["data"][0]["paragraphs"][0]["qas"][0]["question"] = "Changed?"
    copied.write_text(json.dumps(tiny), encoding="utf-8")
    assert load_squad("c", str(copied)).sha256 != first


@pytest.mark.parametrize("title, expected", [
    ("Super_Bowl_50", "super_bowl_50"),
    ("Beyoncé Knowles", "beyonce_knowles"),
    ("  Sourdough (bread)!  ", "sourdough_bread"),
    ("日本", ""),
])
def test_slug(title, expected):
    assert slug(title) == expected


def test_colliding_and_empty_slugs_stay_unique(tmp_path):
    paragraph = {"context": "Some text.", "qas": []}
    data = {"data": [{"title": "A-B", "paragraphs": [paragraph]},
                     {"title": "a b", "paragraphs": [{"context": "More.", "qas": [
                         {"id": "q", "question": "Q?", "answers": [{"text": "More", "answer_start": 0}]}]}]},
                     {"title": "日本", "paragraphs": [paragraph]}]}
    dataset = load_squad("t", str(write(tmp_path, data)))
    assert [doc.id for doc in dataset.documents] == ["a_b_0", "a_b_1_0", "article_2_0"]
    assert dataset.questions[0].relevant == {"a_b_1_0": 1}


# --- broken files ------------------------------------------------------------------------------


def test_every_problem_is_named_by_json_path(tmp_path, tiny):
    broken = copy.deepcopy(tiny)
    lighthouse = broken["data"][0]["paragraphs"]
    del lighthouse[0]["qas"][1]["question"]
    lighthouse[0]["qas"][2]["answers"][0]["text"] = 1822
    lighthouse[1]["qas"][0]["answers"] = []
    lighthouse[1]["qas"][1]["answers"] = [{"text": "Radio beacons", "answer_start": 0}]
    sourdough = broken["data"][1]["paragraphs"]
    sourdough[0]["qas"][1]["id"] = "lh-wick"
    sourdough[0]["qas"][0]["answers"][0]["answer_start"] = "12"
    sourdough[1]["context"] = ""
    broken["data"].append({"paragraphs": []})
    broken["data"].append("not an article")
    message = load_error(write(tmp_path, broken))
    for expected in [
        "data[0].paragraphs[0].qas[1]: field 'question' is missing",
        "data[0].paragraphs[0].qas[2].answers[0]: field 'text' must be str, got int",
        "data[0].paragraphs[1].qas[0]: field 'answers' is empty",
        "data[0].paragraphs[1].qas[1]: is_impossible is true but 'answers' is not empty",
        "data[1].paragraphs[0].qas[1]: field 'id': duplicate id 'lh-wick' (first at data[0].paragraphs[0].qas[0])",
        "data[1].paragraphs[0].qas[0].answers[0]: field 'answer_start' must be int, got str",
        "data[1].paragraphs[1]: field 'context' is empty",
        "data[2]: field 'title' is missing",
        "data[3]: expected an object, got str",
    ]:
        assert expected in message
    assert "SQuAD dataset 'broken' (9 problem(s))" in message
    assert message.count(str(tmp_path / "squad.json")) == 9


@pytest.mark.parametrize("mutate, expected", [
    (lambda d: d["data"][0].update(paragraphs={"context": "x"}), "data[0]: field 'paragraphs' must be list, got dict"),
    (lambda d: d["data"][0]["paragraphs"][0].update(qas=None), "data[0].paragraphs[0]: field 'qas' is missing"),
    (lambda d: d["data"][0]["paragraphs"][0]["qas"][0].update(id=7), "qas[0]: field 'id' must be str, got int"),
    (lambda d: d["data"][0]["paragraphs"][0]["qas"][0].update(is_impossible="no"),
     "qas[0]: field 'is_impossible' must be bool, got str"),
    (lambda d: d["data"][0]["paragraphs"][0]["qas"][0]["answers"].append("text"),
     "qas[0].answers[3]: expected an object, got str"),
    (lambda d: d.pop("data"), "top level: field 'data' is missing"),
])
def test_single_problems(tmp_path, tiny, mutate, expected):
    mutate(tiny)
    assert expected in load_error(write(tmp_path, tiny))


@pytest.mark.parametrize("content, expected", [
    ('{"data": [', ":1: not valid JSON"),
    ("[]", "expected a JSON object with a 'data' list, got list"),
    ('{"data": []}', "no questions"),
])
def test_unusable_files(tmp_path, content, expected):
    path = tmp_path / "squad.json"
    path.write_text(content, encoding="utf-8")
    assert expected in load_error(path)


def test_missing_file_and_bad_documents_argument(tmp_path):
    assert "SQuAD file not found" in load_error(tmp_path / "absent.json")
    with pytest.raises(ValueError, match="documents"):
        load_squad("t", str(TINY_SQUAD), documents="sentences")
