"""judge=mlflow against a real server: MLflow's Correctness judge reaches ``transformers serve`` with the
embedded model, and each item gets MLflow's verdict or a failure with MLflow's reason (never a call error)."""

from __future__ import annotations

import pytest
from hydra.utils import instantiate

from harness.cache import DiskCache
from harness.stages.judging import Judging
from tests.judges.conftest import make_record

pytestmark = pytest.mark.slow


def test_mlflow_correctness_through_the_server(compose, model_server, server_key, tmp_path):
    cfg = compose(["judge=mlflow", f"judge.model=openai:/{model_server.model}", f"judge.base_url={model_server.base_url}",
                   f"judge.api_key_env={server_key}", "judge.selfcheck.enabled=false", "judge.timeout=120",
                   "judge.concurrency=1", "rubric=[mlflow_correctness]"])
    judging = Judging(judge=instantiate(cfg.judge),
                      rubrics={"mlflow_correctness": instantiate(cfg.rubrics.mlflow_correctness)})
    record = make_record()
    judging.run([record], DiskCache(tmp_path))
    judgement = record.judgements["mlflow_correctness/with_context"]
    assert "[Request received]" in model_server.log.read_text()
    if judgement.failed:  # the 135M model rarely writes MLflow's JSON verdict: named as such
        assert not judgement.missing.startswith("judge call failed: cannot connect"), judgement.missing
        assert "400" not in judgement.missing and "404" not in judgement.missing, judgement.missing
    else:
        assert judgement.score in (0.0, 1.0)
