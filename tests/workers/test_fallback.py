"""Where the platform cannot start worker processes, ``harness -m`` starts none and the harness
launcher runs the batch in Hydra's basic launcher, saying so in one line."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.conftest import TINY_DATASET_OVERRIDES

pytestmark = pytest.mark.slow

# The console script, on a platform without a socket pair to pass to a new interpreter (Windows).
NO_WORKERS = ("import sys, harness.workers.process as process; process.supported = lambda: False; "
              "sys.argv[0] = 'harness'; from harness.cli.main import cli; cli()")


def test_without_workers_the_jobs_run_in_the_basic_launcher(tmp_path):
    done = subprocess.run([sys.executable, "-c", NO_WORKERS, "-m", *TINY_DATASET_OVERRIDES, "chunker=none",
                           "retriever.top_k=1,2", "tracking=none", f"hydra.sweep.dir={tmp_path / 'sweep'}",
                           f"cache.dir={tmp_path / 'cache'}"], cwd=tmp_path, capture_output=True, text=True,
                          timeout=400, env={**os.environ, "HF_HUB_OFFLINE": "1", "PYTHONWARNINGS": "ignore"})
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert done.stdout.count("cannot start worker processes; the jobs run in Hydra's basic launcher") == 1
    assert "worker process(es)" not in done.stdout  # the harness launcher's own line: no worker ran
    assert sorted(p.name for p in (tmp_path / "sweep").iterdir() if (p / "per_question.jsonl").exists()) == ["0", "1"]
