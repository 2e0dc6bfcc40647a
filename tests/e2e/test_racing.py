"""End to end: `harness -m hydra/sweeper=racing ...` on the demo, and a killed race resumed.

Two chunkings with a clear loser on key-fact coverage (12-token chunks cut the facts apart): the
race drops the loser after its first round of 30 questions, and stops: one configuration is left.
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

from harness.data.questions_jsonl import load_questions_jsonl
from harness.racing.order import first_questions
from harness.results.table import FILE_NAME
from harness.tracking.mlflow.traces import QUESTION_TAG
from tests.conftest import PROJECT_ROOT
from tests.forkserver import popen
from tests.forkserver import run as forked

pytestmark = pytest.mark.slow

RACE = ["hydra/sweeper=racing", "chunker.size=12,128", "chunker.overlap=2",
        "stats.primary.name=key_facts/coverage_exact", "race.first=30", "race.step=30", "race.alpha=0.2"]
LOSER, WINNER = "chunker.size=12", "chunker.size=128"  # named by what the race varies


def command(folder: Path, *overrides: str) -> list[str]:
    return [sys.executable, "-m", "harness", "-m", f"tracking.tracking_uri=sqlite:///{folder / 'mlflow.db'}",
            f"tracking.artifact_location={folder / 'mlruns'}", f"cache.dir={folder / 'cache'}",
            "experiment_name=race", *overrides]


def env() -> dict[str, str]:
    return {**os.environ, "HF_HUB_OFFLINE": "1", "PYTHONWARNINGS": "ignore"}


def runs(folder: Path, jobs: int = 2) -> tuple[MlflowClient, object, dict[str, object]]:
    """The store's one parent run and its ``jobs`` children, by name."""
    client = MlflowClient(f"sqlite:///{folder / 'mlflow.db'}")
    found = client.search_runs([client.get_experiment_by_name("race").experiment_id])
    parents = [r for r in found if r.data.tags.get("harness.role") == "sweep"]
    children = {r.info.run_name: r for r in found if "mlflow.parentRunId" in r.data.tags}
    assert len(parents) == 1 and len(found) == jobs + 1 and len(children) == jobs, [r.info.run_name for r in found]
    assert {c.data.tags["mlflow.parentRunId"] for c in children.values()} == {parents[0].info.run_id}
    return client, parents[0], children


def check_race(folder: Path, sweep_dir: Path, stdout: str) -> None:
    client, parent, children = runs(folder)
    assert set(children) == {LOSER, WINNER}
    loser, winner = children[LOSER].data.metrics, children[WINNER].data.metrics
    assert loser["race/eliminated_round"] == 1 and loser["race/questions"] == 30
    assert winner["race/eliminated_round"] == 0 and winner["race/questions"] == 30
    assert parent.info.status == "FINISHED" and parent.data.tags["race.champion"] == WINNER
    assert parent.data.metrics["race/rounds"] == 1
    assert parent.data.metrics["race/evaluations"] == 60
    assert parent.data.metrics["race/evaluations_fraction"] == pytest.approx(60 / 172)
    # Each configuration is one run whose table holds the questions it got to: the race order's prefix.
    demo = load_questions_jsonl("cloudflow_demo", str(PROJECT_ROOT / "experiments/demo/questions.jsonl"),
                                str(PROJECT_ROOT / "experiments/demo/docs"))
    for name, count in ((LOSER, 30), (WINNER, 30)):
        table = json.loads(Path(client.download_artifacts(children[name].info.run_id, "per_question_table.json",
                                                          str(folder / name))).read_text())
        column = table["columns"].index("question_id")
        assert sorted(row[column] for row in table["data"]) == sorted(
            q.id for q in first_questions(demo, count, seed=0).questions)
    # The console says who left, when and why; the leaderboard marks it.
    assert f"eliminated {LOSER}: worse than {WINNER} on key_facts/coverage_exact after 30 questions" in stdout
    assert "betting on the running leader" in stdout and "champion: " + WINNER in stdout
    rows = {row["run"]: row for row in csv.DictReader((sweep_dir / "leaderboard.csv").open())}
    assert rows[LOSER]["race/eliminated_round"] == "1" and rows[LOSER]["race/questions"] == "30"
    record = json.loads((sweep_dir / "race.json").read_text())
    assert [r["questions"] for r in record["rounds"]] == [30] and record["sizes"] == [30, 60, 86]
    elimination = record["rounds"][0]["eliminated"][0]
    assert elimination["name"] == LOSER and elimination["e_value"] >= elimination["threshold"] == 2 / 0.2
    assert elimination["mean_difference"] > 0 and record["evidence"] == "leader"


def test_race_drops_the_loser_early_and_logs_it(tmp_path):
    done = forked(command(tmp_path, *RACE, f"hydra.sweep.dir={tmp_path / 'sweep'}"), cwd=tmp_path,
                  env=env(), capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    check_race(tmp_path, tmp_path / "sweep", done.stdout)
    # `harness report` shows the eliminations and the race's leaderboard columns too.
    page = tmp_path / "report.html"
    report = forked([sys.executable, "-m", "harness", "report", str(tmp_path / "sweep"), "--html", str(page),
                     "--tracking-uri", f"sqlite:///{tmp_path / 'mlflow.db'}"], cwd=tmp_path, env=env(),
                    capture_output=True, text=True, timeout=300)
    assert report.returncode == 0, report.stderr[-3000:]
    text = page.read_text()
    assert f"eliminated {LOSER}: worse than {WINNER}" in text and "race/eliminated_round" in text


def kill_after(folder: Path, overrides: list[str], jobs: int) -> Path:
    """Starts a sweep in ``folder``, stops it with SIGTERM once ``jobs`` jobs have finished; its folder."""
    process = popen(command(folder, *overrides), cwd=folder, env=env())
    deadline = time.monotonic() + 600
    while len(list(folder.glob("multirun/*/*/*/summary.json"))) < jobs and time.monotonic() < deadline:
        assert process.poll() is None, process.communicate()[1][-3000:]
        time.sleep(0.05)
    os.kill(process.pid, signal.SIGTERM)
    _, stderr = process.communicate(timeout=120)
    assert "resume with" in stderr, stderr[-3000:]
    return next(folder.glob("multirun/*/*"))


def resume(folder: Path, overrides: list[str], sweep_dir: Path) -> subprocess.CompletedProcess:
    done = forked(command(folder, *overrides, f"+resume={sweep_dir}"), cwd=folder, env=env(),
                  capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return done


def test_killed_race_resumes(tmp_path):
    sweep_dir = kill_after(tmp_path, RACE, jobs=1)
    check_race(tmp_path, sweep_dir, resume(tmp_path, RACE, sweep_dir).stdout)


def test_a_loser_is_logged_when_it_leaves_and_the_others_once_with_their_last_round(tmp_path):
    """Chunks of 12 tokens leave after the first round (20 questions); 64 and 128 run the second
    (40). The loser's run is logged as it leaves, while the race goes on; the others' once, at the end."""
    sizes = {"chunker.size=12": 20, "chunker.size=64": 40, "chunker.size=128": 40}
    race = ["hydra/sweeper=racing", "chunker.size=12,64,128", "chunker.overlap=2",
            "stats.primary.name=key_facts/coverage_exact", "race.first=20", "race.step=20", "race.max_rounds=2",
            "race.alpha=0.2", f"hydra.sweep.dir={tmp_path / 'sweep'}"]
    done = forked(command(tmp_path, *race), cwd=tmp_path, env=env(), capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    client, parent, children = runs(tmp_path, jobs=3)
    assert parent.data.metrics["race/rounds"] == 2 and parent.data.metrics["race/evaluations"] == 20 + 40 + 40
    demo = load_questions_jsonl("cloudflow_demo", str(PROJECT_ROOT / "experiments/demo/questions.jsonl"),
                                str(PROJECT_ROOT / "experiments/demo/docs"))
    for name, child in children.items():
        assert child.info.status == "FINISHED" and child.data.metrics["race/questions"] == sizes[name]
        assert child.data.metrics["race/eliminated_round"] == (name == LOSER)
        # logged once: one value in each metric's history, not one a round
        assert [m.value for m in client.get_metric_history(child.info.run_id, "run/questions")] == [sizes[name]]
        table = json.loads(Path(client.download_artifacts(child.info.run_id, "per_question_table.json",
                                                          str(tmp_path / name))).read_text())
        column = table["columns"].index("question_id")
        assert sorted(row[column] for row in table["data"]) == sorted(
            q.id for q in first_questions(demo, sizes[name], seed=0).questions)
        # one trace per question it got to, each written once (the second round added 20)
        traces = client.search_traces(locations=[child.info.experiment_id], run_id=child.info.run_id,
                                      max_results=100, include_spans=False)
        assert sorted(t.info.tags[QUESTION_TAG] for t in traces) == sorted(row[column] for row in table["data"])
    # the loser's run was closed before the second round's jobs wrote their tables
    second_round = min((tmp_path / "sweep" / folder / FILE_NAME).stat().st_mtime for folder in ("1", "2"))
    assert children[LOSER].info.end_time / 1000 < second_round
    # each configuration's folder names the run that holds it (what `harness sync` reads)
    summaries = [json.loads(path.read_text()) for path in (tmp_path / "sweep").glob("*/summary.json")]
    assert sorted(s["run_id"] for s in summaries) == sorted(c.info.run_id for c in children.values())
