"""Judge columns per question and their aggregates: a missing judgement is counted, never 0."""

from __future__ import annotations

import pytest

from harness.judges.judgement import Judgement
from harness.metrics.judge_suite import JudgeSuite
from tests.judges.conftest import make_record


def judged(values: dict, missing: str | None = None):
    record = make_record()
    judgement = Judgement(score=None if missing else 1.0, missing=missing)
    judgement.values = values
    record.judgements["rubric/with_context"] = judgement
    return record


def test_per_question_values_and_aggregates():
    suite = JudgeSuite()
    rows = [suite.score(judged({"answer_score": 8.0, "answer_score_accurate": 1.0})),
            suite.score(judged({"answer_score": 4.0, "answer_score_accurate": 0.0})),
            suite.score(judged({"answer_score": None}, missing="judge call failed")),
            suite.score(make_record())]  # not judged at all (e.g. not sampled)
    assert rows[2] == {"answer_score": None} and rows[3] == {}
    assert suite.aggregate(rows) == {"answer_score": 6.0, "answer_score_n": 2.0, "answer_score_missing": 1.0,
                                     "answer_score_accuracy": 50.0}


def test_verdict_counts_and_spreads():
    suite = JudgeSuite()
    rows = [suite.score(judged({"manual_grade": 9.0, "manual_grade_verdict_pass": 1.0, "manual_grade_verdict_fail": 0.0,
                                "manual_grade_spread": 0.5})),
            suite.score(judged({"manual_grade": 2.0, "manual_grade_verdict_pass": 0.0, "manual_grade_verdict_fail": 1.0,
                                "manual_grade_spread": 1.5})),
            suite.score(judged({"manual_grade": 3.0, "manual_grade_verdict_pass": 0.0, "manual_grade_verdict_fail": 1.0,
                                "manual_grade_spread": 1.0}))]
    aggregates = suite.aggregate(rows)
    assert aggregates["manual_grade"] == pytest.approx(14 / 3)
    assert aggregates["manual_grade_verdict_pass_count"] == 1.0 and aggregates["manual_grade_verdict_fail_count"] == 2.0
    assert aggregates["manual_grade_spread"] == pytest.approx(1.0)
    assert "manual_grade_spread_n" not in aggregates


def test_all_missing_reports_n_zero_and_no_mean():
    suite = JudgeSuite()
    rows = [suite.score(judged({"claims_faithfulness": None}, missing="no claims")) for _ in range(3)]
    assert suite.aggregate(rows) == {"claims_faithfulness_n": 0.0, "claims_faithfulness_missing": 3.0}
