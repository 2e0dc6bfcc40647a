"""Tests for harness.data.hf: local ``save_to_disk`` folders, parquet and JSONL files read through the
``datasets`` library with a field mapping; rows validated; fingerprints; an end-to-end run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.cli.sweep import run_from_config
from harness.data.hf import load_hf
from harness.data.records import DatasetError

QUESTIONS = {
    "qid": ["a", "b", "c"],
    "query": ["who wrote hamlet", "capital of france", "largest planet"],
    "answers": [{"text": ["William Shakespeare", "Shakespeare"]}, {"text": ["Paris"]}, {"text": ["Jupiter"]}],
    "gold": [["p1"], ["p2"], ["p3"]],
}
PASSAGES = {
    "pid": ["p1", "p2", "p3"],
    "contents": ['"Hamlet"\nHamlet is a tragedy by William Shakespeare.', '"Paris"\nParis is the capital of France.',
                 '"Jupiter"\nJupiter is the largest planet.'],
}
FIELDS = {"question": "query", "answers": "answers.text", "id": "qid", "relevant": "gold", "context": None,
          "context_title": None}
CORPUS_FIELDS = {"id": "pid", "text": None, "title": None, "contents": "contents"}


@pytest.fixture(scope="module")
def saved(tmp_path_factory) -> tuple[Path, Path]:
    """A DatasetDict (split "test") and a corpus Dataset, both written by save_to_disk."""
    import datasets

    root = tmp_path_factory.mktemp("hf")
    datasets.DatasetDict({"test": datasets.Dataset.from_dict(QUESTIONS)}).save_to_disk(str(root / "questions"))
    datasets.Dataset.from_dict(PASSAGES).save_to_disk(str(root / "corpus"))
    return root / "questions", root / "corpus"


def load(questions: Path | str, corpus: Path | str | None, tmp_path: Path, **overrides):
    options = dict(name="t", path=str(questions), split="test", fields=FIELDS,
                   corpus=None if corpus is None else str(corpus), corpus_fields=CORPUS_FIELDS,
                   cache_dir=str(tmp_path / "hf_cache"))
    options.update(overrides)
    return load_hf(**options)


def test_save_to_disk_folders_load_with_the_mapping(saved, tmp_path):
    dataset = load(*saved, tmp_path)
    assert [q.id for q in dataset.questions] == ["a", "b", "c"]
    assert dataset.questions[0].answers == ("William Shakespeare", "Shakespeare")
    assert dataset.questions[0].relevant == {"p1": 1}
    assert [(d.id, d.title) for d in dataset.documents] == [("p1", "Hamlet"), ("p2", "Paris"), ("p3", "Jupiter")]
    assert dataset.documents[1].text == "Paris is the capital of France."


def test_fingerprint_is_datasets_own_and_follows_the_content(saved, tmp_path):
    import datasets

    first = load(*saved, tmp_path).sha256
    assert load(*saved, tmp_path).sha256 == first
    changed = tmp_path / "changed"
    datasets.Dataset.from_dict({**QUESTIONS, "query": ["x", "y", "z"]}).save_to_disk(str(changed))
    assert load(changed, saved[1], tmp_path).sha256 != first


def test_parquet_and_jsonl_files(tmp_path):
    import pandas as pd

    pd.DataFrame(QUESTIONS).to_parquet(tmp_path / "q.parquet")
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text("".join(json.dumps({"pid": i, "contents": c}) + "\n"
                              for i, c in zip(PASSAGES["pid"], PASSAGES["contents"])))
    from_parquet = load(tmp_path / "q.parquet", corpus, tmp_path)
    assert [q.answers for q in from_parquet.questions][0] == ("William Shakespeare", "Shakespeare")
    assert len(from_parquet.documents) == 3
    before = from_parquet.sha256
    corpus.write_text(corpus.read_text() + json.dumps({"pid": "p4", "contents": "x\ny"}) + "\n")
    assert load(tmp_path / "q.parquet", corpus, tmp_path).sha256 != before


def test_contexts_become_gold_documents_and_row_numbers_are_ids(tmp_path):
    import datasets

    folder = tmp_path / "squadlike"
    datasets.Dataset.from_dict({"question": ["q1", "q2", "q3"], "answers": ["A", "B", "C"],
                                "context": ["shared text", "shared text", "other text"],
                                "title": ["T", "T", "U"]}).save_to_disk(str(folder))
    fields = {"question": "question", "answers": "answers", "id": None, "relevant": None,
              "context": "context", "context_title": "title"}
    dataset = load(folder, None, tmp_path, fields=fields, split="train")
    assert [q.id for q in dataset.questions] == ["1", "2", "3"]
    assert len(dataset.documents) == 2
    assert dataset.questions[0].relevant == dataset.questions[1].relevant != dataset.questions[2].relevant
    assert load(folder, None, tmp_path, fields=fields, split="train", sample=2, seed=1).questions[0].id in "123"


def test_bad_rows_are_named(tmp_path, saved):
    import datasets

    folder = tmp_path / "bad"
    datasets.Dataset.from_dict({"qid": ["a", "a", "c"], "query": ["ok", "dup", ""],
                                "answers": [{"text": ["x"]}, {"text": ["y"]}, {"text": ["z"]}],
                                "gold": [["p1"], ["p1"], ["p9"]]}).save_to_disk(str(folder))
    with pytest.raises(DatasetError) as info:
        load(folder, saved[1], tmp_path, split="train")
    message = str(info.value)
    assert f"{folder}[train]:2: field 'id': duplicate id 'a' (first on row 1)" in message
    assert f"{folder}[train]:3: field 'question' (column 'query') is empty" in message
    assert f"{folder}[train]:3: field 'relevant' (column 'gold'): no passage 'p9' in the corpus" in message


def test_wrong_mapping_and_missing_sources_fail_clearly(saved, tmp_path):
    with pytest.raises(DatasetError, match=r"columns \['question'\] are not in the dataset"):
        load(*saved, tmp_path, fields={**FIELDS, "question": "question"})
    with pytest.raises(DatasetError, match="no split 'dev'"):
        load(*saved, tmp_path, split="dev")
    with pytest.raises(DatasetError, match="no passages"):
        load(saved[0], None, tmp_path)
    with pytest.raises(DatasetError, match="cannot load"):
        load(tmp_path / "no_such_folder", saved[1], tmp_path)


def test_hf_folder_end_to_end_with_multi_answer_scores(compose, saved, tmp_path):
    questions, corpus = saved
    predictions = tmp_path / "predictions.json"
    # Hand-worked: "Shakespeare" is the second gold answer (EM 1); "Paris France" vs "Paris": P 1/2, R 1 -> F1 2/3.
    predictions.write_text(json.dumps({"a": "Shakespeare", "b": "Paris France", "c": "Saturn"}))
    cfg = compose(["dataset=hf", f"dataset.path={questions}", f"dataset.corpus={corpus}",
                   "dataset.fields.question=query", "dataset.fields.answers=answers.text", "dataset.fields.id=qid",
                   "dataset.fields.relevant=gold", "dataset.corpus_fields.id=pid", "chunker=none",
                   "generator=predictions", f"generator.path={predictions}", "metrics=[retrieval,answer]",
                   "metrics.answer.bertscore=null", "tracking=none", f"cache.dir={tmp_path}/c"])
    result = run_from_config(cfg)
    rows = {row["question_id"]: row for row in result.rows}
    assert [rows[q]["answer/em"] for q in "abc"] == [1.0, 0.0, 0.0]
    assert [rows[q]["answer/f1"] for q in "abc"] == pytest.approx([1.0, 2 / 3, 0.0])
    assert result.metrics["retrieval/recall_at_5"] == pytest.approx(1.0)


def test_kilt_style_lists_of_outputs_are_mapped(tmp_path, saved):
    rows = [{"id": "k1", "input": "who wrote hamlet",
             "output": [{"answer": "Shakespeare", "provenance": [{"wikipedia_id": "p1"}]},
                        {"answer": "William Shakespeare"}, {"provenance": [{"wikipedia_id": "p1"}]}]}]
    path = tmp_path / "kilt.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    fields = {"question": "input", "answers": "output.answer", "id": "id",
              "relevant": "output.provenance.wikipedia_id", "context": None, "context_title": None}
    (question,) = load(path, saved[1], tmp_path, fields=fields).questions
    assert question.answers == ("Shakespeare", "William Shakespeare") and question.relevant == {"p1": 1}
