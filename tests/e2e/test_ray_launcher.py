"""The Ray launcher against the basic one: the same 4-job sweep, the same runs and numbers."""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path

import psutil
import pytest

from tests.conftest import TINY_DATASET_OVERRIDES
from tests.e2e.test_sweep import run_cli, runs_of, split

pytestmark = pytest.mark.slow

SWEEP = (*TINY_DATASET_OVERRIDES, "chunker=none,recursive", "retriever=dense,hybrid")


def _children_by_name(tmp_path: Path) -> tuple[object, dict[str, object]]:
    _, runs = runs_of(tmp_path)
    parents, children = split(runs)
    assert len(parents) == 1 and len(children) == 4 and len(runs) == 5
    assert {c.data.tags["mlflow.parentRunId"] for c in children} == {parents[0].info.run_id}
    assert all(c.info.status == "FINISHED" for c in children)
    return parents[0], {c.info.run_name: c for c in children}


def _scores(run) -> dict[str, float]:
    """Metrics without wall times and cache counters (parallel workers may both miss an entry)."""
    return {k: v for k, v in run.data.metrics.items() if not k.startswith(("time/", "cache/"))}


def _rows(run) -> list[dict]:
    folder = Path(run.data.tags["harness.output_dir"])
    return [json.loads(line) for line in (folder / "per_question.jsonl").read_text().splitlines()]


def _ray_processes(temp_dir: str) -> list[psutil.Process]:
    found = []
    for process in psutil.process_iter(["cmdline"]):
        if any(temp_dir in part for part in process.info["cmdline"] or []):
            found.append(process)
    return found


def test_ray_sweep_matches_the_basic_launcher(tmp_path):
    basic, ray = tmp_path / "basic", tmp_path / "ray"
    basic.mkdir()
    ray.mkdir()
    # Ray's unix sockets live under its temp dir, whose path must stay short.
    ray_tmp = tempfile.mkdtemp(prefix="ray", dir="/tmp")
    try:
        done = run_cli(basic, *SWEEP)
        assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
        done = run_cli(ray, *SWEEP, "hydra/launcher=ray", "hydra.launcher.ray.init.num_cpus=2",
                       f"+hydra.launcher.ray.init._temp_dir={ray_tmp}", env={"RAY_DEDUP_LOGS": "0"})
        assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
        # The sweep's driver started a local Ray and stopped it on exit.
        assert _ray_processes(ray_tmp) == []
    finally:
        for process in _ray_processes(ray_tmp):
            process.kill()
        shutil.rmtree(ray_tmp, ignore_errors=True)

    basic_parent, basic_children = _children_by_name(basic)
    ray_parent, ray_children = _children_by_name(ray)
    assert sorted(ray_children) == sorted(basic_children)
    for name, child in ray_children.items():
        assert _scores(child) == _scores(basic_children[name]), name
        assert child.data.params == basic_children[name].data.params
        # Ray's workers split torch's threads differently: dense scores agree to float32 rounding,
        # which can flip the 6th decimal of a rounded score; everything else is equal.
        for ours, theirs in zip(_rows(child), _rows(basic_children[name]), strict=True):
            assert ours.pop("retrieved_scores") == pytest.approx(theirs.pop("retrieved_scores"), abs=2e-6)
            assert ours == theirs
    for key in ("sweep/jobs", "sweep/jobs_failed", "sweep/jobs_finished"):
        assert ray_parent.data.metrics[key] == basic_parent.data.metrics[key]
    # Every job embeds, yet each of the two worker processes loads the encoder once.
    loads = [line for line in done.stdout.splitlines() + done.stderr.splitlines() if "loading encoder" in line]
    assert 1 <= len(loads) <= 2, loads
