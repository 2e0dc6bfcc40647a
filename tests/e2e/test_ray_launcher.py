"""The Ray launcher against the basic one: the same 4-job sweep, the same runs and numbers, the same
console plus one line naming the cluster; and Ctrl-C leaves no Ray process behind."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
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


# Set in the sweep's environment: every process it starts inherits it, Ray's agents and workers included,
# whose command lines Ray rewrites (``ray::DashboardAgent``) so that the temp dir no longer shows there.
MARK = "HARNESS_E2E_RAY_TMP"


def _ray_processes(temp_dir: str) -> list[psutil.Process]:
    """The live processes of the sweep's Ray: its temp dir on their command line or in :data:`MARK`."""
    found = []
    for process in psutil.process_iter(["cmdline", "status"]):
        if process.info["status"] == psutil.STATUS_ZOMBIE or process.pid == os.getpid():
            continue
        try:
            if any(temp_dir in part for part in process.info["cmdline"] or []) or process.environ().get(MARK) == temp_dir:
                found.append(process)
        except (psutil.NoSuchProcess, psutil.AccessDenied):
            pass
    return found


@pytest.mark.usefixtures("one_ray_cluster_at_a_time")
def test_ray_sweep_matches_the_basic_launcher(tmp_path):
    basic, ray = tmp_path / "basic", tmp_path / "ray"
    basic.mkdir()
    ray.mkdir()
    # Ray's unix sockets live under its temp dir, whose path must stay short.
    ray_tmp = tempfile.mkdtemp(prefix="ray", dir="/tmp")
    try:
        # Python's warnings as a user's console shows them (run_cli hides them by default).
        grid = run_cli(basic, *SWEEP, "hydra/launcher=basic", env={"PYTHONWARNINGS": ""})
        assert grid.returncode == 0, grid.stdout[-3000:] + grid.stderr[-3000:]
        done = run_cli(ray, *SWEEP, "hydra/launcher=ray", "hydra.launcher.ray.init.num_cpus=2",
                       f"+hydra.launcher.ray.init._temp_dir={ray_tmp}",
                       env={"RAY_DEDUP_LOGS": "0", "PYTHONWARNINGS": "", MARK: ray_tmp},
                       timeout=1200)  # Ray runs its workers at a lower priority: slow on a loaded machine
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
    check_console(done.stdout + done.stderr, grid.stdout + grid.stderr, {ray: "<dir>", basic: "<dir>"})


def _console_lines(text: str, folders: dict[Path, str]) -> set[str]:
    """The lines as a sweep's console shows them, with what differs from run to run masked: times,
    durations, the ship candidates' block, folders, run ids, the Ray worker that printed a line; the
    Ray launcher's "launching" line read as the basic one's."""
    lines = set()
    front = False  # in the ship candidates' block, which ends where the "Statistics:" line begins
    for line in filter(str.strip, text.splitlines()):
        # The front's latencies are measured anew in every sweep, so which configurations it holds
        # (and their speed ratios) can differ between two sweeps of the same grid: only its presence is compared.
        if line.startswith("Ship candidates:"):
            front = True
            lines.add("Ship candidates: <front>")
        front = front and not line.startswith("Statistics:")
        if front:
            continue
        for folder, mask in folders.items():
            line = line.replace(str(folder), mask)
        line = re.sub(r"^\(\w+ pid=\d+\) ", "", line)  # a worker's line, forwarded by Ray
        line = re.sub(r"^\[[-0-9 :,]+\]", "[time]", line)
        line = re.sub(r"\b[0-9a-f]{32}\b", "<run id>", line)
        line = re.sub(r"[\d:]+ elapsed, ETA \S+", "<elapsed>, ETA <eta>", line)  # a progress line's times
        line = re.sub(r"Ray Launcher is launching (\d+) jobs, sweep output dir: \S+", r"Launching \1 jobs locally", line)
        lines.add(line)
    return lines


def check_console(ray: str, basic: str, folders: dict[Path, str]) -> None:
    """A Ray sweep's console, read from a pipe: no escape codes, no Hydra schema or Ray token warning,
    and the basic sweep's lines plus one naming the Ray cluster."""
    assert "\x1b" not in ray, [line for line in ray.splitlines() if "\x1b" in line][:5]
    for warning in ("validated against ConfigStore schema", "Token authentication", "Started a local Ray instance"):
        assert warning not in ray and warning not in basic, warning
    cluster = [line for line in ray.splitlines() if "Ray: started a local cluster at " in line]
    assert len(cluster) == 1 and re.search(r"at [\d.]+:\d+ \(2 CPUs, session session_", cluster[0]), cluster
    assert _console_lines(ray, folders) - _console_lines(basic, folders) == _console_lines(cluster[0], folders)
    assert _console_lines(basic, folders) <= _console_lines(ray, folders)


@pytest.mark.usefixtures("one_ray_cluster_at_a_time")
def test_ctrl_c_stops_the_local_ray_cluster_with_every_process(tmp_path):
    # Ctrl-C sends SIGINT to the whole foreground process group: the harness and the Ray processes it
    # started (raylet, GCS, agents, workers). The harness marks its runs KILLED and ends the cluster.
    ray_tmp = tempfile.mkdtemp(prefix="ray", dir="/tmp")
    args = [sys.executable, "-m", "harness", "-m", f"tracking.tracking_uri=sqlite:///{tmp_path / 'mlflow.db'}",
            f"tracking.artifact_location={tmp_path / 'mlruns'}", f"cache.dir={tmp_path / 'cache'}",
            f"hydra.sweep.dir={tmp_path / 'sweep'}", "experiment_name=e2e", *SWEEP, "hydra/launcher=ray",
            "hydra.launcher.ray.init.num_cpus=1", f"+hydra.launcher.ray.init._temp_dir={ray_tmp}"]
    try:
        with (tmp_path / "out.txt").open("w") as out:
            # A test process may hand its children SIGINT ignored (an earlier test's clean-up, a
            # background start); a terminal's Ctrl-C would find it at its default.
            process = subprocess.Popen(args, cwd=tmp_path, stdout=out, stderr=subprocess.STDOUT, start_new_session=True,
                                       env={**os.environ, "HF_HUB_OFFLINE": "1", MARK: ray_tmp},
                                       preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
            deadline = time.monotonic() + 600
            while not (tmp_path / "sweep" / "0").exists() and time.monotonic() < deadline:  # the first job started
                assert process.poll() is None, (tmp_path / "out.txt").read_text()[-3000:]
                time.sleep(0.05)
            assert _ray_processes(ray_tmp), "the sweep started no local Ray"
            os.killpg(process.pid, signal.SIGINT)
            assert process.wait(timeout=300) == 130, (tmp_path / "out.txt").read_text()[-3000:]
        console = (tmp_path / "out.txt").read_text()
        assert "harness: stopped by SIGINT" in console
        # Without the harness's clean-up ray::DashboardAgent and ray::RuntimeEnvAgent were left here, orphaned.
        assert _ray_processes(ray_tmp) == [], [p.info["cmdline"][:3] for p in _ray_processes(ray_tmp)]
    finally:
        for process in _ray_processes(ray_tmp):
            process.kill()
        shutil.rmtree(ray_tmp, ignore_errors=True)
