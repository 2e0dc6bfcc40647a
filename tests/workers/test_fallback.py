"""Where the platform cannot start worker processes, the harness launcher runs the batch in Hydra's
basic launcher and says so in one line."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.conftest import TINY

pytestmark = pytest.mark.slow


def test_without_workers_the_jobs_run_in_the_basic_launcher(tmp_path):
    script = tmp_path / "evaluate.py"
    script.write_text(
        "import harness.workers.process as process\n"
        "process.supported = lambda: False  # as on a platform without a socket pair to pass (Windows)\n"
        "from harness.api import sweep\n"
        f"done = sweep(['dataset=questions_jsonl', 'dataset.questions={TINY / 'questions.jsonl'}', "
        f"'dataset.documents={TINY / 'docs'}', 'chunker=none', 'retriever.top_k=1,2', 'tracking=none', "
        f"'hydra.sweep.dir={tmp_path / 'sweep'}', 'cache.dir={tmp_path / 'cache'}'])\n"
        "print('RUNS', len(done.runs), 'FAILED', done.failed)\n")
    done = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True, timeout=400,
                          env={**os.environ, "HF_HUB_OFFLINE": "1", "PYTHONWARNINGS": "ignore"})
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "RUNS 2 FAILED []" in done.stdout
    assert done.stdout.count("cannot start worker processes; the jobs run in Hydra's basic launcher") == 1
    assert "worker process(es)" not in done.stdout  # the harness launcher's own line: no worker ran
