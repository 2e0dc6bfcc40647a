"""`harness --help` is the tool's own page; `harness --version` prints the harness version."""

from __future__ import annotations

import subprocess
import sys

from harness import __version__
from harness.cli.subcommands import SUBCOMMANDS
from tests.conftest import PROJECT_ROOT


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "harness", *args], capture_output=True, text=True, timeout=120)


def test_help_page_lists_groups_subcommands_and_examples():
    done = run("--help")
    assert done.returncode == 0, done.stderr
    page = done.stdout
    assert page.startswith(f"harness {__version__}: a declarative benchmark harness")
    assert "schema/" not in page and "hydra/" not in page
    groups = sorted(p.name for p in (PROJECT_ROOT / "conf").iterdir() if p.is_dir() and p.name != "hydra")
    for group in groups:
        options = sorted(f.stem for f in (PROJECT_ROOT / "conf" / group).glob("*.yaml"))
        assert f"{group:<11} {', '.join(options)}" in page
    for name, (_, summary) in SUBCOMMANDS.items():
        assert f"{name:<11} {summary}" in page
    examples = page.split("== Examples ==")[1].split("\n\n")[0].strip().splitlines()
    assert len(examples) == 3 and all(line.strip().startswith("harness ") for line in examples)
    assert 'eval "$(harness -sc install=bash)"' in page  # tab completion
    assert len(page.splitlines()) < 60


def test_version():
    done = run("--version")
    assert done.returncode == 0 and done.stdout.strip() == f"harness {__version__}"
