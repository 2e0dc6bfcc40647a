"""benchmarks/gpu_check.py where no GPU exists: one line, exit status 0 (the suite runs without a GPU)."""

import os
import subprocess
import sys

from tests.conftest import PROJECT_ROOT


def test_without_a_cuda_device_it_skips_in_one_line():
    done = subprocess.run([sys.executable, str(PROJECT_ROOT / "benchmarks" / "gpu_check.py")], cwd=PROJECT_ROOT,
                          env={**os.environ, "CUDA_VISIBLE_DEVICES": ""}, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.splitlines() == [done.stdout.strip()] and done.stdout.startswith("gpu_check: skipped, torch ")
    assert "sees no CUDA device" in done.stdout and done.stderr == ""
