"""Every metric the suites emit has a declared unit and range (harness/metrics/units.yaml), and the
context delta is printed with its n, interval and test."""

from __future__ import annotations

import pytest

from harness.cli.sweep import run_from_config
from harness.metrics.context_delta_summary import sweep_lines
from harness.metrics.units import legend_line, short_labels, unit_of
from tests.conftest import TINY_DATASET_OVERRIDES


def test_every_metric_of_a_run_of_every_suite_has_a_unit(compose, tmp_path):
    """A real run on the tiny data with every default suite, answers from a predictions file."""
    import json

    from tests.conftest import TINY

    predictions = tmp_path / "preds.jsonl"
    questions = [json.loads(line) for line in (TINY / "questions.jsonl").read_text().splitlines() if line.strip()]
    predictions.write_text("".join(json.dumps({"question_id": q["id"], "answer": q["ground_truth"],
                                               "latency_seconds": 0.5, "ttft_seconds": 0.1, "input_tokens": 10,
                                               "output_tokens": 3}) + "\n" for q in questions))
    cfg = compose([*TINY_DATASET_OVERRIDES, "generator=predictions", f"generator.path={predictions}",
                   "metrics.answer.bertscore=null", "tracking=none", f"cache.dir={tmp_path}/c"])
    metrics = run_from_config(cfg).metrics
    assert any(k.startswith("generation/") for k in metrics) and any(k.startswith("answer/") for k in metrics)
    missing = []
    for name in metrics:
        try:
            unit_of(name)
        except KeyError:
            missing.append(name)
    assert not missing, f"no unit in harness/metrics/units.yaml for {missing}"


def test_units_labels_and_legend():
    assert unit_of("judge/likelihood_correctness").describe() == (
        "probability of the gold answer, geometric mean per token, 0-1")
    assert (unit_of("judge/likelihood_faithfulness").low, unit_of("judge/likelihood_faithfulness").high) == (None, 0)
    assert unit_of("generation/ttft_p95_seconds").describe() == "seconds, >= 0"
    assert short_labels(["retrieval/hit_at_5", "retrieval/ndcg_at_10"]) == {
        "retrieval/hit_at_5": "hit@5", "retrieval/ndcg_at_10": "ndcg@10"}
    assert legend_line("context_delta/delta_pp") == (
        "ctx_delta = context_delta/delta_pp (percentage points, with minus without context, -100 to 100)")
    with pytest.raises(KeyError, match="units.yaml"):
        unit_of("nosuchsuite/metric")


def test_the_context_delta_says_its_n_interval_and_when_n_is_too_small():
    def run(name, delta, low, high, p, n):
        return {"name": name, "metrics": {"context_delta/delta_pp": delta, "context_delta/delta_pp_ci_low": low,
                                          "context_delta/delta_pp_ci_high": high, "context_delta/mcnemar_p": p,
                                          "context_delta/n_with_context": n, "context_delta/n_no_context": n}}

    small = [run("a", 12.5, 0.0, 37.5, 1.0, 8), run("b", 25.0, 0.0, 62.5, 0.5, 8)]
    assert sweep_lines(small, brief=True) == [
        "ctx_delta: n=8 questions a run; CI excludes 0 in 0 of 2 runs (smallest McNemar p 0.5): "
        "too few questions to conclude."]
    assert sweep_lines([{"name": "d", "metrics": {"context_delta/delta_pp": 5.0}}], brief=False)[1] == (
        "  d: +5.0 pp, n=0, CI n/a, McNemar p n/a: not significant")  # figures missing: said so, never a crash
    assert sweep_lines([run("c", 30.0, 12.0, 48.0, 0.001, 80)], brief=True)[1] == (
        "  c: +30.0 pp, n=80, CI [+12.0, +48.0], McNemar p=0.001: the interval excludes 0")
