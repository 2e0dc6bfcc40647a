"""``harness synth --kind cloze`` end to end on the tiny corpus: the file, its provenance and summary,
the same set again from the same seed, and the set scored as a dataset like any other."""

from __future__ import annotations

import json

import pytest

from harness.cli.compose import compose
from harness.cli.sweep import run_from_config
from harness.cli.synth import compose_synth, main, synth_from_config
from harness.data.questions_jsonl import load_questions_jsonl
from harness.jobs import JobNotValid
from tests.conftest import TINY

# Seed 7's order of the tiny corpus's four documents, each asked about a number with its unit (the
# first kind in synth.writer.spans); hand-checked against the documents.
EXPECTED = [
    ("limits", "Authenticated users get how many requests per minute per authenticated user?", "100 requests per minute"),
    ("cache", "Workflow definitions are cached for how many hour?", "1 hour"),
    ("auth", "All tokens expire after how many seconds?", "3600 seconds"),
    ("database", "PgBouncer keeps a pool of how many connections per region?", "100 connections per region"),
]


def test_writes_a_valid_question_file_offline(tiny, tmp_path, capsys):
    out = tmp_path / "synth.jsonl"
    assert main(["--kind", "cloze", "--questions", "4", "--out", str(out), *tiny, "seed=7"]) == 0
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert [(line["needle_doc_id"], line["question"], line["ground_truth"]) for line in lines] == EXPECTED
    assert [line["id"] for line in lines] == ["cloze_0001", "cloze_0002", "cloze_0003", "cloze_0004"]
    assert lines[2]["expected_answer"] == "All tokens expire after 3600 seconds."
    assert lines[2]["gold_passages"] == [{"chunk_id": "auth#0", "doc_id": "auth", "start": 0, "end": 165,
                                          "text": (TINY / "docs" / "auth.md").read_text()}]
    for line in lines:
        assert line["key_facts"] == [line["ground_truth"]] and line["source"] == line["needle_doc_id"]
        assert (line["domain"], line["difficulty"]) == ("questions_jsonl", "easy")
        provenance = line["provenance"]
        assert (provenance["kind"], provenance["model"], provenance["seed"], provenance["span"]) == (
            "cloze", None, 7, "number_unit")
        assert len(provenance["prompt_sha256"]) == 64
        assert provenance["filters"] == {"roundtrip": {"ranks": [1], "passed": True}}
    summary = json.loads((tmp_path / "synth.jsonl.summary.json").read_text())
    assert summary["made"] == summary["asked"] == 4 and summary["complete"]
    assert summary["filters"]["roundtrip"] == {"enabled": True, "top_k": 5, "level": "passage", "scored": 4,
                                               "removed": 0, "failed": 0, "reasons": {}}
    assert summary["filters"]["answerability"]["enabled"] is False
    printed = capsys.readouterr().out
    assert "4 of 4 questions" in printed and f"dataset.questions={out}" in printed

    # The file is a dataset like any other: it loads with the questions_jsonl loader.
    dataset = load_questions_jsonl("synth", str(out), str(TINY / "docs"))
    assert [q.relevant for q in dataset.questions] == [{line["needle_doc_id"]: 1} for line in lines]
    assert dataset.questions[0].metadata["provenance"]["kind"] == "cloze"


def test_the_same_seed_writes_the_same_file_and_another_seed_another_one(tiny, tmp_path):
    cfg = compose_synth("cloze", [*tiny, "seed=1"])
    first = synth_from_config(cfg, 3, tmp_path / "a.jsonl")
    again = synth_from_config(cfg, 3, tmp_path / "b.jsonl")
    cfg.seed = 2
    other = synth_from_config(cfg, 3, tmp_path / "c.jsonl")
    assert first.path.read_bytes() == again.path.read_bytes()
    # Seed 1 reads limits, auth, database; seed 2 cache, database, limits, asking database another question.
    assert [line["needle_doc_id"] for line in first.lines] == ["limits", "auth", "database"]
    assert [line["needle_doc_id"] for line in other.lines] == ["cache", "database", "limits"]
    assert other.lines[1]["question"] == "The platform accepts how many concurrent connections at the edge?"


def test_the_set_is_scored_like_any_other_and_the_bare_documents_are_not(tiny, tmp_path):
    made = synth_from_config(compose_synth("cloze", [*tiny, "seed=7"]), 4, tmp_path / "s.jsonl")
    run = [f"cache.dir={tmp_path / 'cache'}", "tracking=none", "metrics=[retrieval]", "chunker=none"]
    result = run_from_config(compose(["dataset=questions_jsonl", f"dataset.questions={made.path}",
                                      f"dataset.documents={TINY / 'docs'}", *run]))
    # Each cloze question all but repeats its sentence: BM25 ranks its document first.
    assert [row["gold_rank"] for row in result.rows] == [1, 1, 1, 1]
    assert result.metrics["retrieval/mrr"] == 1.0 and result.dataset_source == str(made.path.resolve())
    # dataset=synthetic finds the documents through the set's summary.
    again = run_from_config(compose(["dataset=synthetic", f"dataset.questions={made.path}", *run]))
    assert again.rows == result.rows
    with pytest.raises(JobNotValid, match="dataset 'documents' has no questions to score"):
        run_from_config(compose(["dataset=documents", f"dataset.documents={TINY / 'docs'}", *run]))
