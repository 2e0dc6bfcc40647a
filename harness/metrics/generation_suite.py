"""Timing and cost of the answers (seed 003, section 9)."""

from __future__ import annotations

import numpy as np

from harness.generators.base import BATCH_SECONDS, BATCH_SIZE, REPORTED_COST
from harness.generators.pricing import PriceTable
from harness.metrics.suites import MetricSuite, Scores, mean_by_key
from harness.results.records import QuestionRecord

_TIMINGS = ("ttft_seconds", "latency_seconds")


class GenerationSuite(MetricSuite):
    """TTFT, latency, decode speed, tokens and dollar cost per question; p50/p95 per run.

    TTFT and latency are per request, as measured (API calls, a local request decoded alone).
    Locally batched answers have none; instead each row gets ``seconds_per_answer_batched`` (its
    batch's wall time / the batch's size) and the run ``answers_per_second`` (answers / the sum of
    their batches' wall times): throughput, not what one request waits.

    ``answered`` counts the answers that succeeded, ``failed_count`` the generator errors
    (``no_context_failed_count`` those of seed 004's no-context answers); ``skipped_count`` counts
    questions a predictions file had no answer for (``on_missing: skip``); neither is scored.

    Args:
        prices: $ per 1M tokens, ``{model: {input: x, output: y}}`` (from YAML).
        price_as: the pricing-table row of the model in use (null: no cost for it).
        percentiles: which percentiles of TTFT and latency to report.
    """

    def __init__(self, prices: dict, price_as: str | None, percentiles: list[int]) -> None:
        self.prices = PriceTable(prices)
        if price_as is not None and price_as not in self.prices:
            raise ValueError(f"price_as '{price_as}' is not in the pricing table: {self.prices.models}")
        self.price_as = price_as
        self.percentiles = [int(p) for p in percentiles]

    def score(self, record: QuestionRecord) -> Scores:
        baseline = record.baseline  # seed 004's no-context answer: its failures are counted too
        failed_baseline = ({"no_context_failed": float(baseline.failed)}
                           if baseline is not None and not baseline.extra.get("skipped") else {})
        return {**self._score_generation(record.generation), **failed_baseline}

    def _score_generation(self, generation) -> Scores:
        if generation is None:
            return {}
        if generation.extra.get("skipped"):  # predictions on_missing=skip: counted apart, never a failure
            return {"skipped": 1.0}
        scores: Scores = {"failed": float(generation.failed), "cached": float(bool(generation.extra.get("cached")))}
        if generation.failed:
            return scores
        for key in (*_TIMINGS, "input_tokens", "output_tokens", "tokens_per_second"):
            value = getattr(generation, key)
            if value is not None:
                scores[key] = float(value)
        if generation.extra.get(BATCH_SECONDS) is not None:
            scores["seconds_per_answer_batched"] = generation.extra[BATCH_SECONDS] / generation.extra[BATCH_SIZE]
        if generation.extra.get(REPORTED_COST) is not None:  # what the system itself says the answer cost
            scores["cost_usd"] = float(generation.extra[REPORTED_COST])
        if generation.input_tokens is not None and generation.output_tokens is not None:
            if self.price_as is not None and "cost_usd" not in scores:
                scores["cost_usd"] = self.prices.cost(self.price_as, generation.input_tokens, generation.output_tokens)
            projected = self.prices.projected(generation.input_tokens, generation.output_tokens)
            scores.update({f"projected_cost_usd/{model}": cost for model, cost in projected.items()})
        return scores

    def aggregate(self, rows: list[Scores]) -> Scores:
        aggregates = mean_by_key(rows, skip=frozenset({"failed", "skipped", "no_context_failed"}))
        aggregates["failed_count"] = sum(row.get("failed", 0.0) for row in rows)
        if any("no_context_failed" in row for row in rows):
            aggregates["no_context_failed_count"] = sum(row.get("no_context_failed", 0.0) for row in rows)
        aggregates["skipped_count"] = sum(row.get("skipped", 0.0) for row in rows)
        aggregates["answered"] = float(sum(1 for row in rows if row.get("failed") == 0.0))  # successes only
        batched = [row["seconds_per_answer_batched"] for row in rows if "seconds_per_answer_batched" in row]
        if batched and sum(batched) > 0:  # each batch's rows add up to its wall time
            aggregates["answers_per_second"] = len(batched) / sum(batched)
        for key in _TIMINGS:
            values = [row[key] for row in rows if key in row]
            for p in self.percentiles if values else []:
                aggregates[f"{key.removesuffix('_seconds')}_p{p}_seconds"] = float(np.percentile(values, p))
        return aggregates
