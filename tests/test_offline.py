"""The harness keeps MLflow's usage telemetry off (no network at run time), unless a user asks for it."""

from __future__ import annotations

import os
import subprocess
import sys

CHECK = "import harness, mlflow.telemetry.utils as t; print(t.is_telemetry_disabled())"


def _telemetry_disabled(**env: str) -> str:
    clean = {k: v for k, v in os.environ.items()
             if k not in ("MLFLOW_DISABLE_TELEMETRY", "DO_NOT_TRACK", "CI", "PYTEST_CURRENT_TEST")}
    done = subprocess.run([sys.executable, "-c", CHECK], env={**clean, **env}, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_importing_harness_turns_mlflow_telemetry_off_and_a_user_may_turn_it_back_on():
    assert _telemetry_disabled() == "True"
    assert _telemetry_disabled(MLFLOW_DISABLE_TELEMETRY="false") == "False"
