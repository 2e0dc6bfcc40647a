"""Seed 004's with/without-context delta: the judge's answer scores when both conditions were
judged, the F1 proxy otherwise; the report names the scorer."""

from __future__ import annotations

import json

import pytest
from hydra.utils import instantiate

from harness.judges.judgement import Judgement
from tests.judges.conftest import make_record


@pytest.fixture
def suite(compose):
    return instantiate(compose().metrics.context_delta)


def with_judgements(qid: str, with_context: float | None, no_context: float | None):
    record = make_record(qid=qid, answer="After 3600 seconds.", baseline="About an hour.")
    for condition, score in (("with_context", with_context), ("no_context", no_context)):
        judgement = Judgement(score=score, missing=None if score is not None else "judge call failed")
        judgement.detail["judge"] = "openai:gpt-4o-mini"
        record.judgements[f"answer_score/{condition}"] = judgement
    return record


def test_proxy_without_judgements(suite):
    records = [make_record(qid="a", answer="3600 seconds", baseline="no idea")]
    suite.prepare(records)
    rows = [suite.score(r) for r in records]
    assert rows == [{"score_with_context": 10.0, "accurate_with_context": 1.0,
                     "score_no_context": 0.0, "accurate_no_context": 0.0}]
    report = json.loads(suite.artifacts(records, rows)["context_delta.json"])
    assert report["scorer"] == "proxy: round half up(10 x token F1)"


def test_judge_scores_replace_the_proxy_and_missing_is_left_out(suite):
    records = [with_judgements("a", 9.0, 3.0), with_judgements("b", 7.0, 8.0), with_judgements("c", None, 2.0)]
    suite.prepare(records)
    rows = [suite.score(r) for r in records]
    assert rows[2] == {"missing_with_context": 1.0, "score_no_context": 2.0, "accurate_no_context": 0.0}  # never a 0
    aggregates = suite.aggregate(rows)
    # "c" is missing with context, so both conditions are compared on "a" and "b" only.
    assert aggregates["accuracy_with_context"] == 100.0 and aggregates["n_with_context"] == 2
    assert aggregates["accuracy_no_context"] == 50.0 and aggregates["n_no_context"] == 2
    assert aggregates["avg_score_no_context"] == pytest.approx(5.5)
    assert aggregates["delta_pp"] == pytest.approx(50.0)
    assert aggregates["missing_with_context"] == 1 and aggregates["unpaired"] == 1
    report = json.loads(suite.artifacts(records, rows)["context_delta.json"])
    assert report["scorer"] == "judge: rubric answer_score (openai:gpt-4o-mini)"
    assert report["per_pack"]["cloudflow_demo"]["scores"] == {"training": [3.0, 8.0], "pack": [9.0, 7.0]}
    assert report["interpretation"].startswith("strong value")


def test_judge_rubric_null_keeps_the_proxy(compose):
    suite = instantiate(compose(["metrics.context_delta.judge_rubric=null"]).metrics.context_delta)
    records = [with_judgements("a", 2.0, 2.0)]
    suite.prepare(records)
    # round(10 x F1("After 3600 seconds.", "3600 seconds")) = round(10 x 0.8), not the judge's 2
    assert suite.score(records[0])["score_with_context"] == 8.0
