"""docs/how-to/mlflow-genai.md's scorer example runs as written and prints what the page says."""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys

import pytest

from tests.conftest import PROJECT_ROOT

PAGE = PROJECT_ROOT / "docs" / "how-to" / "mlflow-genai.md"


@pytest.mark.slow
def test_the_scorer_example_runs_and_prints_the_figures_on_the_page(tmp_path):
    [example] = re.findall(r"```python\n(.*?)```", PAGE.read_text(), flags=re.S)
    printed = ast.literal_eval(example.strip().splitlines()[-1].removeprefix("# "))
    done = subprocess.run([sys.executable, "-c", example], cwd=tmp_path, capture_output=True, text=True, timeout=600,
                          env={**os.environ, "PYTHONPATH": str(PROJECT_ROOT), "MLFLOW_TRACKING_URI": ""})
    assert done.returncode == 0, done.stderr[-3000:]
    assert ast.literal_eval(done.stdout.strip().splitlines()[-1]) == printed
    assert (tmp_path / "mlflow.db").is_file()
