"""Scores a system brought with its answers (a predictions file's ``metrics``), as columns.

A predictions line ``{"question_id": "q1", "answer": "...", "metrics": {"unieval": 0.91}}``
becomes the per-question column ``external/unieval``: any scorer a user already runs can then
be meta-evaluated against human labels (``harness meta-eval``) beside the harness's own.
"""

from __future__ import annotations

from harness.metrics.suites import MetricSuite, Scores
from harness.results.records import QuestionRecord


class ExternalMetricsSuite(MetricSuite):
    """Passes a generation's own ``metrics`` through unchanged (validated when the file was read).

    A failed or skipped generation contributes nothing: its scores would describe no answer.

    >>> from harness.generators.base import Generation
    >>> from types import SimpleNamespace
    >>> record = SimpleNamespace(generation=Generation(text="x", metrics={"unieval": 0.5}))
    >>> ExternalMetricsSuite().score(record)
    {'unieval': 0.5}
    """

    def score(self, record: QuestionRecord) -> Scores:
        generation = record.generation
        if generation is None or generation.failed or not generation.metrics:
            return {}
        return dict(generation.metrics)
