"""Tests for harness.data.flashrag: FlashRAG question and corpus files load, every golden answer is
accepted by EM/F1 (hand-computed), and malformed lines are named with file, line and field."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.cli.sweep import run_from_config
from harness.data.flashrag import load_flashrag
from harness.data.records import DatasetError

QUESTIONS = [
    {"id": "test_0", "question": "who wrote the declaration of independence",
     "golden_answers": ["Thomas Jefferson", "Jefferson"], "metadata": {"source": "nq"}},
    {"id": "test_1", "question": "what is the capital of australia", "golden_answers": ["Canberra"]},
    {"id": "test_2", "question": "how many legs does a spider have",
     "golden_answers": ["eight", "8", "eight legs"]},
    {"id": "test_3", "question": "who painted the mona lisa",
     "golden_answers": ["Leonardo da Vinci", "da Vinci", "Leonardo"]},
]
CORPUS = [
    {"id": "0", "contents": '"Thomas Jefferson"\nThomas Jefferson drafted the Declaration of Independence.'},
    {"id": "1", "contents": '"Canberra"\nCanberra is the capital city of Australia.'},
    {"id": 2, "contents": '"Spider"\nSpiders have eight legs and spin silk.'},
    {"id": "3", "contents": '"Mona Lisa"\nThe Mona Lisa was painted by Leonardo da Vinci.'},
]


def write_jsonl(path: Path, lines: list) -> Path:
    path.write_text("".join((json.dumps(x) if isinstance(x, dict) else x) + "\n" for x in lines), encoding="utf-8")
    return path


@pytest.fixture
def files(tmp_path: Path) -> tuple[Path, Path]:
    return write_jsonl(tmp_path / "test.jsonl", QUESTIONS), write_jsonl(tmp_path / "wiki.jsonl", CORPUS)


def load_error(questions: Path, corpus: Path) -> str:
    with pytest.raises(DatasetError) as info:
        load_flashrag("broken", str(questions), str(corpus))
    return str(info.value)


def test_questions_and_corpus_load(files):
    dataset = load_flashrag("nq", *map(str, files))
    assert [q.id for q in dataset.questions] == ["test_0", "test_1", "test_2", "test_3"]
    first = dataset.questions[0]
    assert first.answers == ("Thomas Jefferson", "Jefferson") and first.ground_truth == "Thomas Jefferson"
    assert first.metadata == {"source": "nq"} and first.relevant == {}
    assert [d.id for d in dataset.documents] == ["0", "1", "2", "3"]
    assert dataset.documents[0].title == "Thomas Jefferson"
    assert dataset.documents[0].text == "Thomas Jefferson drafted the Declaration of Independence."


def test_sha256_covers_both_files(files):
    questions, corpus = files
    first = load_flashrag("a", str(questions), str(corpus)).sha256
    assert load_flashrag("b", str(questions), str(corpus), limit=1).sha256 == first
    with corpus.open("a") as handle:
        handle.write(json.dumps({"id": "9", "contents": "x\ny"}) + "\n")
    assert load_flashrag("a", str(questions), str(corpus)).sha256 != first


def test_limit_and_seeded_sample(files):
    assert [q.id for q in load_flashrag("x", *map(str, files), limit=2).questions] == ["test_0", "test_1"]
    first = [q.id for q in load_flashrag("x", *map(str, files), sample=2, seed=3).questions]
    assert first == [q.id for q in load_flashrag("x", *map(str, files), sample=2, seed=3).questions]
    assert len(first) == 2 and first == sorted(first)
    with pytest.raises(ValueError, match="exclusive"):
        load_flashrag("x", *map(str, files), limit=1, sample=1)


def test_every_bad_line_is_named(tmp_path, files):
    _, corpus = files
    questions = write_jsonl(tmp_path / "bad.jsonl", [
        QUESTIONS[0],
        {"id": "q", "question": "no answers"},
        {"id": "r", "question": "wrong type", "golden_answers": "Paris"},
        {"id": "s", "question": "empty", "golden_answers": []},
        {"id": "t", "question": "a number", "golden_answers": ["ok", 7]},
        "{not json",
        {"id": "test_0", "question": "again", "golden_answers": ["x"]},
    ])
    message = load_error(questions, corpus)
    assert f"{questions}:2: field 'golden_answers' is missing" in message
    assert f"{questions}:3: field 'golden_answers' must be list, got str" in message
    assert f"{questions}:4: field 'golden_answers' is empty" in message
    assert f"{questions}:5: field 'golden_answers[1]' must be a non-empty string, got 7" in message
    assert f"{questions}:6: not valid JSON" in message
    assert f"{questions}:7: field 'id': duplicate id 'test_0' (first on line 1)" in message


def test_bad_corpus_lines_are_named(tmp_path, files):
    questions, _ = files
    corpus = write_jsonl(tmp_path / "corpus.jsonl", [CORPUS[0], {"id": "5"}, {"contents": "t\nx"}, CORPUS[0]])
    message = load_error(questions, corpus)
    assert f"{corpus}:2: field 'contents' is missing" in message
    assert f"{corpus}:3: field 'id' is missing" in message
    assert f"{corpus}:4: field 'id': duplicate id '0' (first on line 1)" in message
    assert "FlashRAG corpus file not found" in load_error(questions, tmp_path / "nowhere.jsonl")


# Hand-worked EM and F1 (SQuAD normalisation, best over the golden answers):
PREDICTIONS = {
    "test_0": ("Jefferson", 1.0, 1.0),                # EM on the second golden answer
    "test_1": ("Sydney", 0.0, 0.0),
    # tokens {spiders, have, 8, legs}: vs "8" P 1/4, R 1 -> 2/5; vs "eight legs" P 1/4, R 1/2 -> 1/3; "eight" 0
    "test_2": ("spiders have 8 legs", 0.0, 2 / 5),
    "test_3": ("Leonardo", 1.0, 1.0),
}


def test_multi_answer_em_f1_end_to_end(compose, files, tmp_path):
    questions, corpus = files
    predictions = tmp_path / "predictions.json"
    predictions.write_text(json.dumps({qid: answer for qid, (answer, _, _) in PREDICTIONS.items()}))
    cfg = compose(["dataset=flashrag", f"dataset.questions={questions}", f"dataset.corpus={corpus}",
                   "chunker=none", "generator=predictions", f"generator.path={predictions}",
                   "metrics=[answer]", "metrics.answer.bertscore=null", "tracking=none", f"cache.dir={tmp_path}/c"])
    result = run_from_config(cfg)
    rows = {row["question_id"]: row for row in result.rows}
    assert set(rows) == set(PREDICTIONS)
    for qid, (_, em, f1) in PREDICTIONS.items():
        assert rows[qid]["answer/em"] == em, qid
        assert rows[qid]["answer/f1"] == pytest.approx(f1), qid
    assert result.metrics["answer/em"] == pytest.approx(2 / 4)
    assert result.dataset_sha256 == load_flashrag("x", str(questions), str(corpus)).sha256
