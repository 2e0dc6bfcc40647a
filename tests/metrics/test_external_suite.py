"""The external suite: a predictions file's per-line metrics become ``external/<name>`` columns."""

from __future__ import annotations

from hydra.utils import instantiate

from harness.data.records import Question
from harness.generators.base import Generation
from harness.metrics.external_suite import ExternalMetricsSuite
from harness.results.records import QuestionRecord


def record(generation: Generation | None) -> QuestionRecord:
    return QuestionRecord(Question(id="q", text="?", answers=("a",)), [], [], 5, generation=generation)


def test_metrics_pass_through_and_failures_score_nothing():
    suite = ExternalMetricsSuite()
    assert suite.score(record(Generation("a", metrics={"unieval": 0.25, "bleurt": -1.0}))) == \
        {"unieval": 0.25, "bleurt": -1.0}
    assert suite.score(record(Generation("", error="boom", metrics={"unieval": 0.25}))) == {}
    assert suite.score(record(Generation("a"))) == {}
    assert suite.score(record(None)) == {}
    rows = [{"unieval": 0.25}, {}, {"unieval": 0.75}]
    assert suite.aggregate(rows) == {"unieval": 0.5}  # a question without the score is not a 0


def test_the_default_config_has_the_suite(compose):
    assert isinstance(instantiate(compose().metrics.external), ExternalMetricsSuite)
