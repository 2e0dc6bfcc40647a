"""Killed sweeps: SIGTERM/SIGINT end the open runs as KILLED; `+resume=` finishes only what was left.

Each sweep is a real `python -m harness -m ...` subprocess stopped with os.kill once two of its jobs
have written their summaries.
"""

from __future__ import annotations

import csv
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from mlflow.tracking import MlflowClient

from tests.conftest import TINY_DATASET_OVERRIDES
from tests.forkserver import popen
from tests.forkserver import run as forked

pytestmark = pytest.mark.slow

SIX_JOBS = [*TINY_DATASET_OVERRIDES, "chunker=none,recursive,fixed_tokens", "retriever=bm25,dense"]


def harness(folder: Path, *overrides: str) -> list[str]:
    folder.mkdir(exist_ok=True)
    return [sys.executable, "-m", "harness", "-m", f"tracking.tracking_uri=sqlite:///{folder / 'mlflow.db'}",
            f"tracking.artifact_location={folder / 'mlruns'}", f"cache.dir={folder / 'cache'}",
            "experiment_name=resume", "stats=none", *overrides]


def env() -> dict[str, str]:
    return {**os.environ, "HF_HUB_OFFLINE": "1", "PYTHONWARNINGS": "ignore"}


def finished_summaries(folder: Path) -> list[dict]:
    found = []
    for path in folder.glob("multirun/*/*/*/summary.json"):
        summary = json.loads(path.read_text())
        if summary["status"] == "FINISHED":
            found.append(summary)
    return found


def run_and_kill(folder: Path, signum: int, after_jobs: int, overrides: list[str]) -> subprocess.CompletedProcess:
    """Starts a sweep and sends ``signum`` once ``after_jobs`` jobs have finished."""
    # A process started in the background may inherit SIGINT ignored; a terminal's Ctrl-C would not be.
    process = popen(harness(folder, *overrides), cwd=folder, env=env(), sigint_default=True)
    deadline = time.monotonic() + 600
    while len(finished_summaries(folder)) < after_jobs and process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    assert process.poll() is None, "the sweep ended before it could be interrupted"
    os.kill(process.pid, signum)
    sent = time.monotonic()
    stdout, stderr = process.communicate(timeout=120)
    return subprocess.CompletedProcess(process.args, process.returncode, stdout, stderr + f"\n[{time.monotonic() - sent:.1f}s]")


def resume(folder: Path, overrides: list[str], target: str | None = None) -> subprocess.CompletedProcess:
    """Resumes the sweep in ``folder``: by its folder, or by ``target`` (a parent run id)."""
    (sweep_dir,) = folder.glob("multirun/*/*")
    target = target or str(sweep_dir.relative_to(folder))
    return forked(harness(folder, *overrides, f"+resume={target}"), cwd=folder,
                  env=env(), capture_output=True, text=True, timeout=900)


def sweep_runs(folder: Path) -> tuple[object, list]:
    client = MlflowClient(f"sqlite:///{folder / 'mlflow.db'}")
    runs = client.search_runs([client.get_experiment_by_name("resume").experiment_id])
    (parent,) = [r for r in runs if r.data.tags.get("harness.role") == "sweep"]
    return parent, [r for r in runs if r.data.tags.get("mlflow.parentRunId") == parent.info.run_id]


def metrics_by_job(children: list) -> dict[str, dict[str, float]]:
    return {c.info.run_name: {k: v for k, v in c.data.metrics.items() if k.startswith(("retrieval/", "key_facts/"))}
            for c in children if c.info.status == "FINISHED"}


def test_sigterm_kills_open_runs_and_resume_finishes_only_the_rest(tmp_path):
    killed = run_and_kill(tmp_path / "killed", signal.SIGTERM, 2, SIX_JOBS)
    assert killed.returncode == 143, killed.stderr[-3000:]
    assert "Traceback" not in killed.stderr
    assert killed.stderr.count("harness: stopped by SIGTERM") == 1
    parent, children = sweep_runs(tmp_path / "killed")
    assert parent.info.status == "KILLED" and parent.data.tags["harness.killed_by"] == "SIGTERM"
    before = {c.info.run_name: c for c in children if c.info.status == "FINISHED"}
    assert 2 <= len(before) < 6
    for child in children:  # the job in flight, if the signal came during one, ended KILLED too
        assert child.info.status in ("FINISHED", "KILLED")
        assert child.info.status == "FINISHED" or child.data.tags["harness.killed_by"] == "SIGTERM"

    resumed = resume(tmp_path / "killed", SIX_JOBS)
    assert resumed.returncode == 0, resumed.stderr[-3000:]
    parent_after, children_after = sweep_runs(tmp_path / "killed")
    assert parent_after.info.run_id == parent.info.run_id and parent_after.info.status == "FINISHED"
    assert parent_after.data.metrics["sweep/jobs"] == 6 and parent_after.data.metrics["sweep/jobs_failed"] == 0
    finished = [c for c in children_after if c.info.status == "FINISHED"]
    assert len(finished) == 6 and len({c.info.run_name for c in finished}) == 6
    for name, child in before.items():  # kept as they were, not computed again
        (same,) = [c for c in finished if c.info.run_name == name]
        assert (same.info.run_id, same.info.start_time) == (child.info.run_id, child.info.start_time)
    (sweep_dir,) = (tmp_path / "killed").glob("multirun/*/*")
    with open(sweep_dir / "leaderboard.csv") as board:
        assert len(list(csv.DictReader(board))) == 6

    whole = forked(harness(tmp_path / "whole", *SIX_JOBS), cwd=tmp_path / "whole", env=env(),
                   capture_output=True, text=True, timeout=900)
    assert whole.returncode == 0, whole.stderr[-3000:]
    expected = metrics_by_job(sweep_runs(tmp_path / "whole")[1])
    assert metrics_by_job(finished) == expected and len(expected) == 6


def test_resume_marks_runs_of_a_sigkilled_sweep_killed(tmp_path):
    jobs = [*TINY_DATASET_OVERRIDES, "chunker=none,recursive", "retriever=bm25"]
    run_and_kill(tmp_path, signal.SIGKILL, 1, jobs)
    parent, children = sweep_runs(tmp_path)
    assert parent.info.status == "RUNNING"  # nothing could close it
    left_running = [c.info.run_id for c in children if c.info.status == "RUNNING"]

    resumed = resume(tmp_path, jobs, target=parent.info.run_id)  # by the parent run's id this time
    assert resumed.returncode == 0, resumed.stderr[-3000:]
    parent_id = parent.info.run_id
    parent, children = sweep_runs(tmp_path)
    assert parent.info.run_id == parent_id and parent.info.status == "FINISHED"
    statuses = {c.info.run_id: c for c in children}
    for run_id in left_running:  # closed as its process was dead, then the job's run again when it re-ran
        assert statuses[run_id].info.status == "FINISHED" and statuses[run_id].data.tags["harness.resumed"] == "true"
        assert statuses[run_id].data.tags["harness.killed_by"].startswith("dead process ")
    # one run per job, none left open: the re-run job logged into the run it had opened
    assert sorted(c.data.params["choice.chunker"] for c in children) == ["none", "recursive"]
    assert all(c.info.status == "FINISHED" for c in children)


def test_resume_of_an_unknown_run_stops_before_anything_runs(tmp_path):
    done = forked(harness(tmp_path, *TINY_DATASET_OVERRIDES, "retriever=bm25,dense", "+resume=no_such_run"),
                  cwd=tmp_path, env=env(), capture_output=True, text=True, timeout=300)
    assert done.returncode == 2
    assert "it cannot be resumed" in done.stderr and "no_such_run" in done.stderr
    assert not (tmp_path / "multirun").exists()


def test_sigint_exits_130_with_one_line(tmp_path):
    stopped = run_and_kill(tmp_path, signal.SIGINT, 1, [*TINY_DATASET_OVERRIDES, "chunker=none,recursive",
                                                          "retriever=bm25,dense"])
    assert stopped.returncode == 130, stopped.stderr[-3000:]
    assert "Traceback" not in stopped.stderr and stopped.stderr.count("harness: stopped by SIGINT") == 1
    parent, _ = sweep_runs(tmp_path)
    assert parent.info.status == "KILLED" and parent.data.tags["harness.killed_by"] == "SIGINT"
