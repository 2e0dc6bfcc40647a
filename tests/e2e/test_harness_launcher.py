"""End to end: hydra/launcher=harness (the default of ``harness -m``) runs a batch's jobs in worker
processes, the first started before the sweep is composed; one killed mid-batch (SIGKILL, as the OOM
killer or ``kill -9``) fails only its job, with the reason, and a fresh worker runs the rest; two
workers run a race side by side, each continuing its own configurations."""

from __future__ import annotations

import json
import os

import pytest

from harness.tracking.sweep.liveness import PID_TAG, STARTED_TAG
from tests.conftest import TINY_DATASET_OVERRIDES
from tests.e2e.test_sweep import run_cli, runs_of, split

pytestmark = pytest.mark.slow

DIES_AT_2 = ["app=python", "app.target=tests.apps.apps_for_tests:dies_at", "+app.params.n=1,2,3",
             "plugins.allowed_targets=[tests.apps.apps_for_tests.dies_at]", "chunker=none"]


def test_a_killed_worker_fails_only_its_job_and_a_fresh_one_runs_the_rest(tmp_path):
    done = run_cli(tmp_path, *TINY_DATASET_OVERRIDES, *DIES_AT_2, timeout=400)
    assert done.returncode == 1, done.stdout[-3000:] + done.stderr[-3000:]  # a job failed
    reason = "its worker process died (killed by SIGKILL: out of memory, or kill -9) while running it"
    assert f"FAILED app.params.n=2: WorkerLost: {reason}" in done.stdout, done.stdout[-3000:]
    summaries = {json.loads((tmp_path / "sweep" / str(n) / "summary.json").read_text())["name"]:
                 json.loads((tmp_path / "sweep" / str(n) / "summary.json").read_text()) for n in range(3)}
    assert {name: s["status"] for name, s in summaries.items()} == {
        "app.params.n=1": "FINISHED", "app.params.n=2": "FAILED", "app.params.n=3": "FINISHED"}
    assert reason in (tmp_path / "sweep" / "1" / "traceback.txt").read_text()
    # Every job is one run under the sweep's parent, the lost one FAILED in the run its start opened.
    _, runs = runs_of(tmp_path)
    parents, children = split(runs)
    assert len(parents) == 1 and parents[0].info.status == "FINISHED"
    by_name = {c.info.run_name: c for c in children}
    assert len(children) == 3 and set(by_name) == set(summaries)
    assert {n: c.info.status for n, c in by_name.items()} == {
        "app.params.n=1": "FINISHED", "app.params.n=2": "FAILED", "app.params.n=3": "FINISHED"}
    assert summaries["app.params.n=2"]["run_id"] == by_name["app.params.n=2"].info.run_id
    assert by_name["app.params.n=1"].data.metrics["answer/f1"] == by_name["app.params.n=3"].data.metrics["answer/f1"]
    # Jobs 0 and 1 ran in one worker, job 2 in a new one; none in the sweep's own process.
    pids = {n: c.data.tags[PID_TAG] for n, c in by_name.items()}
    assert pids["app.params.n=1"] == pids["app.params.n=2"] != pids["app.params.n=3"]
    assert parents[0].data.tags[PID_TAG] not in pids.values()
    assert not _alive(int(pids["app.params.n=3"]))  # the workers stopped with the sweep
    # `harness -m` started the first worker first thing, so that its imports overlapped the sweep's
    # own start: it is older than the sweep's parent run (opened after composing and checking every
    # job); the second was started when the first died
    started = {n: float(c.data.tags[STARTED_TAG]) for n, c in by_name.items()}
    assert started["app.params.n=1"] < parents[0].info.start_time / 1000 < started["app.params.n=3"]


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_a_script_without_a_main_guard_runs_its_sweep_once(tmp_path):
    # The workers are new interpreters that do not import the launching program's main module, as
    # multiprocessing's spawn would: such a script would start its sweep again in every worker.
    import subprocess
    import sys

    from tests.conftest import TINY

    script = tmp_path / "evaluate.py"
    script.write_text(
        "from harness.api import sweep\n"
        f"done = sweep(['dataset=questions_jsonl', 'dataset.questions={TINY / 'questions.jsonl'}', "
        f"'dataset.documents={TINY / 'docs'}', 'chunker=none', 'retriever.top_k=1,2', 'tracking=none', "
        f"'hydra.sweep.dir={tmp_path / 'sweep'}', 'cache.dir={tmp_path / 'cache'}'])\n"
        "print('RUNS', len(done.runs), 'FAILED', done.failed)\n")
    done = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True, timeout=400,
                          env={**os.environ, "HF_HUB_OFFLINE": "1", "PYTHONWARNINGS": "ignore"})
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert done.stdout.count("RUNS") == 1 and "RUNS 2 FAILED []" in done.stdout


def test_two_workers_run_a_race_side_by_side_each_continuing_its_own_configuration(tmp_path):
    """``hydra.launcher.workers=2`` runs two jobs at a time; each configuration of a two-configuration
    race runs both rounds in the same worker, its config continued in place: what the second round
    logs is the second round's (its overrides, its questions), not a stale copy of the first's."""
    import re

    race = ["hydra/sweeper=racing", "chunker.size=64,128", "chunker.overlap=2",
            "stats.primary.name=key_facts/coverage_exact", "race.first=20", "race.step=20", "race.max_rounds=2",
            "race.alpha=0.001", "hydra.launcher.workers=2"]
    done = run_cli(tmp_path, *race, timeout=400)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert sorted(re.findall(r"#(\d+) continues its configuration's round before", done.stdout)) == ["2", "3"]
    for number in (0, 1):
        summary = json.loads((tmp_path / "sweep" / str(number) / "summary.json").read_text())
        assert "race.questions=40" in summary["overrides"] and summary["job_num"] == number
        assert "race.questions=40" in (tmp_path / "sweep" / str(number) / ".hydra" / "overrides.yaml").read_text()
    _, runs = runs_of(tmp_path)
    parents, children = split(runs)
    assert len(children) == 2 and all(c.data.metrics["race/questions"] == 40 for c in children)
    assert len({c.data.tags[PID_TAG] for c in children}) == 2
