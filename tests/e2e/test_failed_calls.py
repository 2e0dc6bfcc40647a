"""End to end: a run whose API calls all fail is FAILED in MLflow and `harness` exits non-zero,
with what it measured still logged; a working server gives a FINISHED run (issue 15, point 3)."""

from __future__ import annotations

import pytest

from tests.conftest import TINY_DATASET_OVERRIDES
from tests.e2e.test_sweep import run_cli, runs_of
from tests.stages.conftest import KEY_ENV, api_key, openai_server  # noqa: F401 (fixtures)

pytestmark = pytest.mark.slow


def generator(base_url: str) -> list[str]:
    return ["generator=openai", "generator.model=m", f"generator.base_url={base_url}",
            f"generator.api_key_env={KEY_ENV}", "generator.max_retries=0", "generator.timeout=5",
            "metrics.answer.bertscore=null", *TINY_DATASET_OVERRIDES]


@pytest.mark.parametrize("mode, reason", [("refused", "APIConnectionError: Connection error."),
                                          ("garbage", "UnparsableReplyError: the reply held no")])
def test_every_call_failed_is_a_failed_run_and_a_non_zero_exit(tmp_path, openai_server, mode, reason):
    done = run_cli(tmp_path, *generator(openai_server(mode)), multirun=False)
    assert done.returncode == 1, done.stderr[-3000:]
    (run,) = runs_of(tmp_path)[1]
    assert run.info.status == "FAILED"
    metrics = run.data.metrics
    assert (metrics["generation/answered"], metrics["generation/failed_count"]) == (0.0, 4.0)
    # every failed answer a miss (generation.on_failure=miss): the run never looks better than one that answered
    assert metrics["answer/em"] == metrics["answer/f1"] == 0.0 and metrics["answer/count_empty_response"] == 4.0
    assert metrics["retrieval/mrr"] > 0  # what was measured is still logged
    assert run.data.tags["harness.error"].startswith(f"generation: all 4 calls failed; most common reason (4x): {reason}")


def test_a_working_server_finishes_with_exit_zero(tmp_path, openai_server):
    done = run_cli(tmp_path, *generator(openai_server("ok")), multirun=False)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    (run,) = runs_of(tmp_path)[1]
    assert run.info.status == "FINISHED" and "harness.error" not in run.data.tags
    assert (run.data.metrics["generation/answered"], run.data.metrics["generation/failed_count"]) == (4.0, 0.0)
