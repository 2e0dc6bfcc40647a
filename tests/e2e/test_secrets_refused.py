"""Issue 15.4: a key written into the config never starts a run, and lands nowhere: not in a run
name, tag, .hydra file, summary, log, the console or the MLflow store."""

from __future__ import annotations

import pytest

from tests.conftest import TINY_DATASET_OVERRIDES
from tests.e2e.test_sweep import run_cli, runs_of

pytestmark = pytest.mark.slow
KEY = "sk-proj-Zr4Lw9Qm2Xv7Bn1Kt8Yc3Hd6"


@pytest.mark.parametrize("multirun, leak", [
    (False, f"+generator.api_key={KEY}"),            # issue: run name, harness.overrides, .hydra, summary.json
    (True, f"+generator.api_key={KEY}"),
    (True, f"generator.api_key_env={KEY}"),          # issue: harness.error, traceback.txt, app.log
])
def test_a_key_in_the_config_is_refused_and_found_nowhere(tmp_path, multirun, leak):
    done = run_cli(tmp_path, *TINY_DATASET_OVERRIDES, "generator=openai", leak,
                   *(["retriever=bm25,dense"] if multirun else []), multirun=multirun)
    assert done.returncode == 2, done.stderr[-2000:]
    assert "api_key" in done.stderr and "environment variable" in done.stderr
    assert KEY not in done.stdout + done.stderr
    assert runs_of(tmp_path)[1] == []
    assert [p for p in tmp_path.rglob("*") if p.is_file() and KEY.encode() in p.read_bytes()] == []
