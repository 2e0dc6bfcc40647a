"""`make run`'s demo, shrunk to one configuration (the run test_demo_context_delta.py shares): the
local generator decodes ``generation.ttft_sample`` of the answered questions alone and batches the
rest, so the run logs its time to first token."""

from __future__ import annotations

import json

import numpy as np
import pytest
from omegaconf import OmegaConf

from tests.conftest import PROJECT_ROOT
from tests.e2e.test_demo_context_delta import demo_run
from tests.e2e.test_sweep import runs_of

pytestmark = pytest.mark.slow


def test_a_demo_run_logs_ttft_percentiles(tmp_path_factory):
    demo = OmegaConf.load(PROJECT_ROOT / "conf" / "experiment" / "demo_sweep.yaml")
    alone = demo.generation.ttft_sample
    assert 1 <= alone < demo.generation.sample  # the demo measures TTFT, and batches the other answers
    tmp_path, done = demo_run(tmp_path_factory)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    rows = [json.loads(line) for line in (tmp_path / "run" / "per_question.jsonl").read_text().splitlines()]
    timed = [r for r in rows if r.get("generation/ttft_seconds") is not None]
    assert len(timed) == alone and all(0 < r["generation/ttft_seconds"] < r["generation/latency_seconds"]
                                       for r in timed)
    ttft = [r["generation/ttft_seconds"] for r in timed]
    _, (run,) = runs_of(tmp_path)
    metrics = run.data.metrics
    assert metrics["generation/ttft_p50_seconds"] == pytest.approx(np.percentile(ttft, 50))
    assert metrics["generation/ttft_p95_seconds"] == pytest.approx(np.percentile(ttft, 95))
    assert "generation/seconds_per_answer_batched" in metrics  # the others were batched
