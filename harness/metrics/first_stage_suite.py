"""The first stage's ranking, scored like the final one, when a reranker ran (``first_stage/*``).

With ``reranker=none`` it scores nothing, so a run without a second stage has no such columns.
Its cut-offs reach the reranker's ``candidates`` (e.g. ``first_stage/recall_at_100``), so one run
measures both what the first stage found and what the reranker made of it.
"""

from __future__ import annotations

from harness.metrics.suites import RetrievalSuite, Scores
from harness.results.records import QuestionRecord


class FirstStageSuite(RetrievalSuite):
    """:class:`~harness.metrics.suites.RetrievalSuite` over ``record.first_stage``.

    Args:
        ks: cut-offs; one above the reranker's ``candidates`` is skipped.
    """

    def score(self, record: QuestionRecord) -> Scores:
        return {} if record.first_stage is None else super().score(record.first_stage)
