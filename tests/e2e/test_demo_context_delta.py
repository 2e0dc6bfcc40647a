"""`make run`'s demo, shrunk to one configuration: the context delta is scored by the embedded
likelihood judge, which passes its self-check on the demo questions, and is not degenerate."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.e2e.test_sweep import run_cli
from tests.shared import completed, once, process, shared_root

pytestmark = pytest.mark.slow


def demo_run(tmp_path_factory) -> tuple[Path, object]:
    """One configuration of `make run`'s demo, run once per test session (the longest CLI run of the
    suite: the local generator and judge on every demo question) and read by the tests of its context
    delta and of its time to first token: (its folder, its CompletedProcess). Tracked, as the demo is."""
    def build(folder: Path) -> dict:
        return process(run_cli(folder, "experiment=demo_sweep", "hydra.mode=RUN", "chunker=fixed_tokens",
                               "retriever=hybrid", multirun=False, timeout=1800))

    value = once(tmp_path_factory, "demo_run", build)
    return shared_root(tmp_path_factory) / "shared" / "demo_run", completed(value)


def test_demo_context_delta_is_non_zero_and_scored_by_a_judge_that_passes_its_selfcheck(tmp_path_factory):
    tmp_path, done = demo_run(tmp_path_factory)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    metrics = json.loads((tmp_path / "run" / "metrics.json").read_text())["metrics"]
    assert metrics["judge/selfcheck_n"] == 20
    assert metrics["judge/likelihood_correctness_selfcheck_passed"] == 1.0
    assert metrics["judge/selfcheck_auc"] >= 0.75 and metrics["judge/selfcheck_gap"] > 0
    delta = json.loads((tmp_path / "run" / "context_delta.json").read_text())
    assert delta["scorer"].startswith("judge: rubric likelihood_correctness")
    assert delta["scorer_selfcheck_passed"] is True and metrics["context_delta/selfcheck_passed"] == 1.0
    # accuracy_threshold: auto: the threshold this run's self-check measured, logged and applied to the delta
    threshold = metrics["judge/likelihood_correctness_threshold"]
    assert threshold == metrics["judge/likelihood_correctness_selfcheck_threshold"] == delta["threshold"]
    assert metrics["judge/likelihood_correctness_threshold_auto"] == 1.0
    assert "judge/likelihood_correctness_accurate: score >=" in done.stdout
    assert delta["sample_per_pack"] == 8
    assert delta["delta_pp"] != 0.0 and metrics["context_delta/delta_pp"] == delta["delta_pp"]
    from harness.metrics.units import unit_of

    for name in metrics:  # every metric of the demo, judge and routes included, has a declared unit
        unit_of(name)
    assert 0 < threshold < 1  # likelihood_correctness is a probability, its threshold on the same scale
    scores = delta["per_pack"]["cloudflow_demo"]["scores"]
    assert len(set(scores["pack"] + scores["training"])) > 2  # the scores spread: not one value for every answer
