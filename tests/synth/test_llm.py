"""``harness synth --kind llm`` through a local OpenAI-compatible server: single and multi-hop
questions, the answer filters' scores, and the set loading back as a dataset with two gold documents."""

from __future__ import annotations

import json

from hydra.utils import instantiate

from harness.api import synth
from tests.conftest import TINY


def test_a_generator_writes_questions_the_filters_score(tiny, llm_server, tmp_path, compose):
    made = synth("llm", 4, tmp_path / "llm.jsonl", [*tiny, *llm_server, "seed=3"])
    lines = [json.loads(line) for line in made.path.read_text().splitlines()]
    assert lines == made.lines and len(lines) == 4
    answers = {"auth": "3600 seconds", "cache": "1 hour", "database": "100 connections", "limits": "100 requests"}
    for line in lines:
        doc = line["needle_doc_id"]
        assert line["ground_truth"] == answers[doc] and line["question"].startswith("What figure goes with ")
        assert line["difficulty"] == "medium" and "key_facts" not in line and "expected_answer" not in line
        provenance = line["provenance"]
        assert (provenance["kind"], provenance["model"]) == ("llm", "fake")
        assert provenance["reply"] == f"Question: {line['question']}\nAnswer: {answers[doc]}"
        # Read with its passage the fake model answers with the gold figure; without, it does not know.
        assert provenance["filters"]["answerability"] == {"f1": 1.0, "answer": answers[doc], "passed": True}
        assert provenance["filters"]["context_dependence"] == {"f1": 0.0, "answer": "I do not know.", "passed": True}
    summary = made.summary
    assert (summary["model"], summary["answer_model"], summary["writes"]["failed"]) == ("fake", "fake", 0)
    assert {name: row["removed"] for name, row in summary["filters"].items() if row["enabled"]} == {
        "roundtrip": 0, "answerability": 0, "context_dependence": 0}

    # Score it as a dataset like any other.
    cfg = compose(["dataset=questions_jsonl", f"dataset.questions={made.path}", f"dataset.documents={TINY / 'docs'}"])
    dataset = instantiate(cfg.dataset)
    assert [(q.text, q.ground_truth, q.relevant) for q in dataset.questions] == [
        (line["question"], line["ground_truth"], {line["needle_doc_id"]: 1}) for line in lines]


def test_multi_hop_questions_come_from_passages_of_two_documents(tiny, llm_server, tmp_path, compose):
    # Half of 4 questions are multi-hop, from passages of two documents that retrieve each other.
    made = synth("llm", 4, tmp_path / "hops.jsonl", [*tiny, *llm_server, "synth.writer.multi_hop=0.5"])
    kinds = [line["provenance"]["kind"] for line in made.lines]
    assert kinds == ["multi_hop", "multi_hop", "llm", "llm"] and made.summary["by_kind"] == {"multi_hop": 2, "llm": 2}
    # BM25, each document's text as the query, top 3: auth-database, auth-limits, cache-limits, database-limits.
    assert made.summary["pairs"] == 4
    hop = made.lines[0]
    assert hop["difficulty"] == "hard" and len(hop["needle_doc_ids"]) == 2 and hop["needle_doc_id"] == hop["needle_doc_ids"][0]
    assert [p["doc_id"] for p in hop["gold_passages"]] == hop["needle_doc_ids"]
    assert hop["provenance"]["filters"]["roundtrip"]["passed"] is True
    cfg = compose(["dataset=questions_jsonl", f"dataset.questions={made.path}", f"dataset.documents={TINY / 'docs'}"])
    assert instantiate(cfg.dataset).questions[0].relevant == {doc: 1 for doc in hop["needle_doc_ids"]}
