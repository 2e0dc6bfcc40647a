"""Timing and cost aggregation of generated answers."""

from __future__ import annotations

import numpy as np
import pytest

from harness.data.records import Question
from harness.generators.base import Generation
from harness.metrics.generation_suite import GenerationSuite
from harness.results.records import QuestionRecord

# Seed 003 section 9's table (dollars per 1M tokens).
PRICES = {"gpt-4o": {"input": 2.5, "output": 10.0}, "gpt-4o-mini": {"input": 0.15, "output": 0.6},
          "local": {"input": 0.0, "output": 0.0}}


def record(generation: Generation | None) -> QuestionRecord:
    return QuestionRecord(Question(id="q", text="?"), [], [], 5, generation=generation)


def test_cost_per_query_and_projection_for_every_priced_model():
    suite = GenerationSuite(PRICES, price_as="gpt-4o", percentiles=[50, 95])
    scores = suite.score(record(Generation("a", 1000, 200, 0.1, 0.5)))
    assert scores["cost_usd"] == pytest.approx(0.0045)  # 1000 x 2.5/1M + 200 x 10/1M
    assert scores["projected_cost_usd/gpt-4o-mini"] == pytest.approx(0.00027)
    assert scores["projected_cost_usd/local"] == 0.0
    assert scores["tokens_per_second"] == pytest.approx(200 / 0.4)


def test_percentiles_equal_numpy_and_failures_are_counted_not_scored():
    suite = GenerationSuite(PRICES, price_as=None, percentiles=[50, 95])
    rng = np.random.default_rng(0)
    ttfts = rng.uniform(0.05, 0.5, 40)
    rows = [suite.score(record(Generation("a", 10, 5, float(t), float(t) + 1.0))) for t in ttfts]
    rows.append(suite.score(record(Generation("", error="TimeoutError: read timed out"))))
    rows.append(suite.score(record(None)))  # not sampled: nothing
    aggregates = suite.aggregate(rows)
    assert aggregates["ttft_p50_seconds"] == pytest.approx(np.percentile(ttfts, 50))
    assert aggregates["latency_p95_seconds"] == pytest.approx(np.percentile(ttfts + 1.0, 95))
    assert aggregates["failed_count"] == 1 and aggregates["answered"] == 40  # successes only
    assert "cost_usd" not in aggregates


def test_unknown_price_row_is_refused():
    with pytest.raises(ValueError, match="price_as 'nope'"):
        GenerationSuite(PRICES, price_as="nope", percentiles=[50])


def test_skipped_predictions_are_counted_apart_from_failures():
    suite = GenerationSuite(PRICES, price_as=None, percentiles=[50])
    skipped = Generation("", error="skipped: no prediction for this question", extra={"skipped": True})
    rows = [suite.score(record(Generation("a", 10, 5, 0.1, 0.2))), suite.score(record(skipped)),
            suite.score(record(skipped)), suite.score(record(Generation("", error="boom")))]
    aggregates = suite.aggregate(rows)
    assert rows[1] == {"skipped": 1.0}
    assert aggregates["skipped_count"] == 2 and aggregates["failed_count"] == 1 and aggregates["answered"] == 1


def test_no_context_failures_are_counted_and_kept_with_their_reason():
    suite = GenerationSuite(PRICES, price_as=None, percentiles=[50])
    ok, failed = Generation("a", 10, 5, 0.1, 0.2), Generation("", error="TimeoutError: read timed out")
    records = [QuestionRecord(Question(id="a", text="?"), [], [], 5, generation=ok, baseline=failed),
               QuestionRecord(Question(id="b", text="?"), [], [], 5, generation=ok, baseline=ok),
               QuestionRecord(Question(id="c", text="?"), [], [], 5, baseline=failed)]  # no_context only
    rows = [suite.score(r) for r in records]
    assert rows[2] == {"no_context_failed": 1.0}
    aggregates = suite.aggregate(rows)
    assert aggregates["no_context_failed_count"] == 2 and aggregates["failed_count"] == 0
    assert records[0].row({})["no_context_answer_error"] == "TimeoutError: read timed out"


def test_batched_answers_give_throughput_and_per_answer_share_not_latency():
    suite = GenerationSuite(PRICES, price_as=None, percentiles=[50])
    # Two batches: 4 answers in 2.0 s, then 2 answers in 1.5 s (seconds per answer 0.5 and 0.75).
    batches = [(2.0, 4)] * 4 + [(1.5, 2)] * 2
    rows = [suite.score(record(Generation("a", 10, 5, extra={"batch_seconds": t, "batch_size": n})))
            for t, n in batches]
    assert rows[0]["seconds_per_answer_batched"] == 0.5 and rows[-1]["seconds_per_answer_batched"] == 0.75
    aggregates = suite.aggregate(rows)
    assert aggregates["answers_per_second"] == pytest.approx(6 / 3.5)  # answers / total batch wall time
    assert aggregates["seconds_per_answer_batched"] == pytest.approx((4 * 0.5 + 2 * 0.75) / 6)
    assert not any(key.startswith(("latency", "ttft")) for key in aggregates)
