"""The same sweep through Hydra's basic launcher and the harness launcher gives the same results:
every metric, per-question table, job folder file (the ``.hydra/*.yaml`` included) and MLflow
record. What may differ: times, ids, process ids, the folders' own paths and the launcher's choice."""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path

import pytest
import yaml
from mlflow.tracking import MlflowClient

from tests.conftest import TINY_DATASET_OVERRIDES
from tests.e2e.test_sweep import run_cli, runs_of, split

pytestmark = pytest.mark.slow

# stats.front.min_ratio=1000: the four runs are equivalent on quality, so the front would be decided
# by their retrieval times alone, measured once per run and different in any two sweeps.
SWEEP = [*TINY_DATASET_OVERRIDES, "chunker=none,recursive", "retriever=bm25", "retriever.top_k=2,5",
         "stats.front.min_ratio=1000"]
# Values that are times, durations, ids or process facts: they differ between any two runs.
VARYING = re.compile(r"(latency|seconds|_time|time_|timestamp|duration|elapsed|start|end|run_?id|sweep_id|"
                     r"pid|process_started|hostname|\bid\b|_ms$|per_second|throughput)", re.I)
TIMES_FASTER = re.compile(r"\d+(?:\.\d+)?x (faster|slower|cheaper)")
LAUNCHER = re.compile(r"hydra/launcher|hydra\.launcher")


@pytest.fixture(scope="module")
def both(tmp_path_factory):
    folders = {}
    for launcher in ("basic", "harness"):
        folder = tmp_path_factory.mktemp(launcher)
        done = run_cli(folder, *SWEEP, f"hydra/launcher={launcher}", timeout=400)
        assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
        folders[launcher] = folder
    return folders["basic"], folders["harness"]


def test_every_job_folder_holds_the_same_files_and_values(both):
    basic, harness = both
    jobs = sorted(p.name for p in (basic / "sweep").iterdir() if p.is_dir())
    assert jobs == ["0", "1", "2", "3"]
    assert jobs == sorted(p.name for p in (harness / "sweep").iterdir() if p.is_dir())
    for job in jobs:
        a, b = basic / "sweep" / job, harness / "sweep" / job
        files = sorted(str(p.relative_to(a)) for p in a.rglob("*") if p.is_file())
        assert files == sorted(str(p.relative_to(b)) for p in b.rglob("*") if p.is_file())
        for name in files:
            assert _content(a / name, basic) == _content(b / name, harness), f"job {job}: {name}"
    sweep_files = sorted(p.name for p in (basic / "sweep").iterdir() if p.is_file())
    assert "leaderboard.csv" in sweep_files and "multirun.yaml" in sweep_files
    assert sweep_files == sorted(p.name for p in (harness / "sweep").iterdir() if p.is_file())
    for name in sweep_files:
        assert _content(basic / "sweep" / name, basic) == _content(harness / "sweep" / name, harness), name


def test_mlflow_records_are_the_same(both):
    records = []
    for folder in both:
        client, runs = runs_of(folder)
        parents, children = split(runs)
        assert len(parents) == 1 and len(children) == 4
        records.append({
            child.info.run_name: {
                "status": child.info.status,
                "params": _normal(child.data.params, folder),
                "metrics": _normal(child.data.metrics, folder),
                "tags": _normal(child.data.tags, folder),
            } for child in children
        } | {"parent": {"status": parents[0].info.status, "params": _normal(parents[0].data.params, folder),
                        "metrics": _normal(parents[0].data.metrics, folder)}})
    assert records[0] == records[1]
    assert all(run["metrics"]["retrieval/mrr"] > 0 for name, run in records[0].items() if name != "parent")


def _content(path: Path, folder: Path):
    """The file's values, its folder's path replaced, what varies left out."""
    if path.suffix == ".png":  # a plot (the statistics of a race's survivors): drawn from the same values
        return path.read_bytes()
    text = path.read_text().replace(str(folder), "<folder>")
    if path.suffix in (".yaml", ".yml"):
        data = yaml.safe_load(text)
        if isinstance(data, dict) and "hydra" in data:  # the launcher's own settings
            data["hydra"].pop("launcher", None)
        return _normal(data, folder)
    if path.suffix == ".json":
        return _normal(json.loads(text), folder)
    if path.suffix == ".jsonl":
        return [_normal(json.loads(line), folder) for line in text.splitlines() if line.strip()]
    if path.suffix == ".csv":
        return [_normal(row, folder) for row in csv.DictReader(text.splitlines())]
    if path.suffix == ".log":  # log lines carry their times; the messages must match
        return [re.sub(r"^\[[^\]]*\]", "", line) for line in text.splitlines() if "Launching" not in line]
    return text


def _normal(value, folder: Path):
    if isinstance(value, dict):
        return {k: _normal(v, folder) for k, v in value.items()
                if not VARYING.search(str(k)) and not LAUNCHER.search(str(k))}
    if isinstance(value, list):
        return [_normal(v, folder) for v in value if not (isinstance(v, str) and LAUNCHER.search(v))]
    if isinstance(value, str):  # a reason's measured speed-up ("1.4x faster") is a time too
        return TIMES_FASTER.sub(r"<n>x \1", value.replace(str(folder), "<folder>"))
    return value


def test_a_race_through_either_launcher_decides_and_records_the_same(tmp_path):
    """The racing sweeper's rounds through the basic and the harness launcher: the same race record,
    leaderboard, job files and MLflow runs: three chunkings, one eliminated after the first round,
    two going on to the second, which the harness launcher continues in its worker (the config of
    the round before, its built pipeline)."""
    from tests.e2e.test_racing import command, env
    from tests.forkserver import run as forked

    race = ["hydra/sweeper=racing", "chunker.size=12,64,128", "chunker.overlap=2",
            "stats.primary.name=key_facts/coverage_exact", "race.first=20", "race.step=20", "race.max_rounds=2",
            "race.alpha=0.2",
            # retrieval times decide the front at 1.25x (64- against 128-token chunks: 1.3-1.4x), so a
            # loaded machine could move a run on or off it: here no time or size counts
            "stats.front.min_ratio=1000"]

    folders = []
    for launcher in ("basic", "harness"):
        folder = tmp_path / launcher
        folder.mkdir()
        done = forked(command(folder, *race, f"hydra/launcher={launcher}", f"hydra.sweep.dir={folder / 'sweep'}"),
                      cwd=folder, env=env(), capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
        folders.append(folder)
        continued = re.findall(r"#(\d+) continues its configuration's round before", done.stdout)
        assert continued == ([] if launcher == "basic" else ["3", "4"]), done.stdout[-3000:]
    basic, harness = folders
    files = sorted(str(p.relative_to(basic / "sweep")) for p in (basic / "sweep").rglob("*") if p.is_file())
    assert "race.json" in files and "leaderboard.csv" in files and "0/per_question.jsonl" in files
    assert files == sorted(str(p.relative_to(harness / "sweep")) for p in (harness / "sweep").rglob("*")
                           if p.is_file())
    for name in files:
        assert _content(basic / "sweep" / name, basic) == _content(harness / "sweep" / name, harness), name
    runs = []
    for folder in folders:
        client = MlflowClient(f"sqlite:///{folder / 'mlflow.db'}")
        found = client.search_runs([client.get_experiment_by_name("race").experiment_id])
        runs.append({run.info.run_name: (run.info.status, _normal(run.data.params, folder),
                                         _normal(run.data.metrics, folder), _normal(run.data.tags, folder))
                     for run in found})
    assert len(runs[0]) == 4 and runs[0] == runs[1]
    record = json.loads((harness / "sweep" / "race.json").read_text())
    assert [len(r["ran"]) for r in record["rounds"]] == [3, 2], record["rounds"]  # the second round: continued
