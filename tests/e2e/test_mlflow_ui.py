"""What the MLflow UI shows, read from a real store: the sweep's parent carries its champion
(``champion/<metric>``, tag ``harness.champion``) and its front of ship candidates (``front.json``, tag
``harness.front``; each child its place), and every run (child or single) its dataset as an MLflow
input (name, digest, source), also when ``harness sync`` logs the sweep into another store."""

from __future__ import annotations

import json
import sys

import pytest
from mlflow.tracking import MlflowClient
from omegaconf import OmegaConf

from harness.data.questions_jsonl import load_questions_jsonl
from tests.conftest import TINY, TINY_DATASET_OVERRIDES
from tests.e2e.test_sweep import run_cli, runs_of, split
from tests.forkserver import run as forked

pytestmark = pytest.mark.slow


def dataset_inputs(run) -> list:
    """The run's question file as a dataset input; the evaluation dataset of its questions (issue 35)
    must be linked beside it."""
    inputs = run.inputs.dataset_inputs
    evaluation = [i for i in inputs if i.dataset.source_type != "local"]
    assert len(evaluation) == 1 and evaluation[0].dataset.name.startswith("questions_jsonl"), \
        [(i.dataset.name, i.dataset.source_type) for i in inputs]
    return [(i.dataset.name, i.dataset.digest, json.loads(i.dataset.source)["uri"], i.dataset.source_type,
             {t.key: t.value for t in i.tags}) for i in inputs if i.dataset.source_type == "local"]


def test_parent_names_its_champion_and_every_run_its_dataset(tmp_path):
    done = run_cli(tmp_path, *TINY_DATASET_OVERRIDES, "chunker=none,recursive", "retriever=bm25")
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    client, runs = runs_of(tmp_path)
    parents, children = split(runs)
    parent, = parents
    champion, = [c for c in children if c.data.metrics.get("stats/is_champion") == 1.0]
    assert parent.data.tags["harness.champion"] == champion.info.run_name
    assert parent.data.tags["harness.champion_run_id"] == champion.info.run_id
    headline = OmegaConf.load(tmp_path / "sweep" / "multirun.yaml").report.headline
    expected_metrics = {f"champion/{m}": champion.data.metrics[m] for m in headline if m in champion.data.metrics}
    assert len(expected_metrics) >= 4  # the retrieval and key-fact columns this sweep has
    assert {k: v for k, v in parent.data.metrics.items() if k.startswith("champion/")} == expected_metrics
    recorded = json.loads((tmp_path / "sweep" / "champion.json").read_text())
    assert recorded["name"] == champion.info.run_name
    # the front of a retrieval-only sweep: weighed on retrieval latency and index memory
    front = json.loads((tmp_path / "sweep" / "front.json").read_text())
    assert [axis["name"] for axis in front["axes"]] == ["retrieval_latency", "index_memory"]
    assert parent.data.tags["harness.front"] == " | ".join(front["short"][name] for name in front["members"])
    assert "front.json" in {a.path for a in client.list_artifacts(parent.info.run_id)}
    places = {c.info.run_name: c.data.tags["harness.front"] for c in children}
    from harness.stats.front import place

    assert places == {run["name"]: place(run, front["short"]) for run in front["runs"]}
    assert set(places.values()) <= {"front", "undecided", "worse", "equivalent", "non_inferior", "better"} | {
        f"dominated by {short}" for short in front["short"].values()}
    assert "Ship candidates: " in done.stdout

    dataset = load_questions_jsonl("questions_jsonl", str(TINY / "questions.jsonl"), str(TINY / "docs"))
    expected = [("questions_jsonl", dataset.sha256[:36], (TINY / "questions.jsonl").resolve().as_uri(), "local",
                 {"mlflow.data.context": "eval"})]
    for child in children:
        assert dataset_inputs(client.get_run(child.info.run_id)) == expected
    assert dataset.sha256.startswith(children[0].data.tags["dataset.sha256"][:36])
    assert parent.inputs.dataset_inputs == []  # the parent ran nothing itself

    # `harness sync` into a store that never saw the sweep logs the champion and the inputs again.
    other = f"sqlite:///{tmp_path / 'other.db'}"
    synced = forked([sys.executable, "-m", "harness", "sync", str(tmp_path / "sweep"),
                     f"tracking.tracking_uri={other}", f"tracking.artifact_location={tmp_path / 'other'}"],
                    cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert synced.returncode == 0, synced.stderr[-3000:]
    client = MlflowClient(other)
    runs = client.search_runs([client.get_experiment_by_name("e2e").experiment_id])
    (new_parent,), new_children = split(runs)
    assert new_parent.data.tags["harness.champion"] == champion.info.run_name
    assert new_parent.data.tags["harness.front"] == parent.data.tags["harness.front"]
    assert sorted(c.data.tags["harness.front"] for c in new_children) == sorted(places.values())
    assert new_parent.data.tags["harness.champion_run_id"] in {c.info.run_id for c in new_children}
    assert {k: v for k, v in new_parent.data.metrics.items() if k.startswith("champion/")} == expected_metrics
    assert len(new_children) == 2
    assert all(dataset_inputs(client.get_run(c.info.run_id)) == expected for c in new_children)


def test_a_single_run_logs_its_dataset(tmp_path):
    done = run_cli(tmp_path, *TINY_DATASET_OVERRIDES, "chunker=none", "retriever=bm25", multirun=False)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    client, (run,) = runs_of(tmp_path)
    (name, digest, source, kind, tags), = dataset_inputs(client.get_run(run.info.run_id))
    assert (name, source, kind) == ("questions_jsonl", (TINY / "questions.jsonl").resolve().as_uri(), "local")
    assert digest == run.data.tags["dataset.sha256"][:36] and tags == {"mlflow.data.context": "eval"}
