"""A failed gate: one line per failure and exit status 3; passing gates exit 0."""

from __future__ import annotations

import re

import pytest
from mlflow.tracking import MlflowClient

from tests.conftest import TINY_DATASET_OVERRIDES
from tests.e2e.test_sweep import run_cli

pytestmark = pytest.mark.slow


def test_a_regression_against_a_logged_baseline_exits_3_with_one_line(tmp_path):
    baseline = run_cli(tmp_path, *TINY_DATASET_OVERRIDES, "retriever=bm25", multirun=False)
    assert baseline.returncode == 0, baseline.stderr[-3000:]
    client = MlflowClient(f"sqlite:///{tmp_path / 'mlflow.db'}")
    (run,) = client.search_runs([client.get_experiment_by_name("e2e").experiment_id])
    # On the tiny corpus hybrid ranks as well as bm25 (mrr equal: the gate passes) but returns
    # four chunks for one relevant one: context precision drops on every question (0.25 vs 1, 1, 0.5, 1).
    rules = ("gates.rules=[{metric: retrieval/mrr, min: 0.5},"
             f" {{metric: retrieval/mrr, no_significant_regression_vs: {run.info.run_id}}},"
             f" {{metric: retrieval/context_precision, no_significant_regression_vs: {run.info.run_id}}}]")
    gated = run_cli(tmp_path, *TINY_DATASET_OVERRIDES, "retriever=hybrid", rules, "hydra.run.dir=gated",
                    multirun=False)
    assert gated.returncode == 3, gated.stdout[-3000:] + gated.stderr[-3000:]
    failures = [line for line in gated.stdout.splitlines() if line.startswith("gate ")]
    assert len(failures) == 1
    assert failures[0].startswith(f"gate retrieval/context_precision no significant regression vs {run.info.run_id} "
                                  "failed: run ")
    # the run's short name: the groups it picks and a short hash of its other overrides
    assert re.search(r"retriever=hybrid #[0-9a-f]{6} is significantly worse: mean difference -0\.6250 over 4 "
                     r"questions, paired t-test p=0\.01539 < 0\.05$", failures[0])  # ttest_rel([.25]*4, [1, 1, .5, 1])
    assert (tmp_path / "gated" / "gates_failed.txt").read_text().strip() == failures[0]

    passing = run_cli(tmp_path, *TINY_DATASET_OVERRIDES, "retriever=hybrid", rules.rsplit(",", 2)[0] + "]",
                      "hydra.run.dir=passing", multirun=False)
    assert passing.returncode == 0, passing.stdout[-3000:]
    assert "Gates: all 2 passed" in passing.stdout
