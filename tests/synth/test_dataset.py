"""dataset=synthetic: a set scored over the corpus it was written from, whatever that corpus is."""

from __future__ import annotations

import json

import pytest
from hydra.utils import instantiate

from harness.cli.compose import compose
from harness.cli.synth import synth
from harness.data.records import DatasetError
from harness.synth.dataset import load_synthetic


def beir_folder(folder):
    """A BEIR corpus of three abstracts with figures in them, and one judged query."""
    (folder / "qrels").mkdir(parents=True)
    texts = {"d1": "Mice were fed 20 grams of fat daily.", "d2": "The trial enrolled 300 patients in Boston.",
             "d3": "Serum levels rose by 15 percent after treatment."}
    (folder / "corpus.jsonl").write_text("".join(json.dumps({"_id": k, "title": f"Study {k}", "text": v}) + "\n"
                                                 for k, v in texts.items()))
    (folder / "queries.jsonl").write_text(json.dumps({"_id": "q1", "text": "fat diet in mice"}) + "\n")
    (folder / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\nq1\td1\t1\n")


def test_a_set_written_from_a_beir_corpus_is_scored_over_it(settings, tmp_path, monkeypatch):
    beir_folder(tmp_path / "beir")
    monkeypatch.chdir(tmp_path)  # the corpus path is given relative: the summary records it absolute
    made = synth("cloze", 3, "set.jsonl", [*settings, "dataset=beir", "dataset.path=beir"])
    assert made.summary["corpus"] == {"_target_": "harness.data.beir.load_beir", "name": "beir",
                                      "path": str(tmp_path / "beir"), "split": "test"}
    assert sorted(line["ground_truth"] for line in made.lines) == ["15 percent", "20 grams", "300 patients"]
    beir = instantiate(compose(["dataset=beir", f"dataset.path={tmp_path / 'beir'}"]).dataset)
    monkeypatch.chdir(tmp_path.parent)
    dataset = instantiate(compose(["dataset=synthetic", f"dataset.questions={tmp_path / 'set.jsonl'}"]).dataset)
    assert dataset.documents == beir.documents and dataset.source == str(tmp_path / "set.jsonl")
    assert [(q.text, q.relevant) for q in dataset.questions] == [
        (line["question"], {line["needle_doc_id"]: 1}) for line in made.lines]


def test_a_summary_naming_foreign_code_or_missing_is_refused(tmp_path):
    path = tmp_path / "set.jsonl"
    path.write_text(json.dumps({"id": "q", "question": "q?"}) + "\n")
    with pytest.raises(DatasetError, match="summary of the synthetic set not found"):
        load_synthetic("s", str(path))
    (tmp_path / "set.jsonl.summary.json").write_text(json.dumps({"corpus": {"_target_": "shutil.rmtree", "path": "/"}}))
    with pytest.raises(DatasetError, match="config key 'dataset._target_' names 'shutil.rmtree'"):
        load_synthetic("s", str(path))
    (tmp_path / "set.jsonl.summary.json").write_text(json.dumps({"kind": "cloze"}))
    with pytest.raises(DatasetError, match="no corpus config in it"):
        load_synthetic("s", str(path))
