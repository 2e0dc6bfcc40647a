"""`harness compare` against runs written directly into a temporary MLflow store."""

from __future__ import annotations

import json
import random

import pytest
from mlflow.tracking import MlflowClient

from harness.cli.compare import main as compare
from tests.forkserver import run as forked


@pytest.fixture
def store(tmp_path):
    uri = f"sqlite:///{tmp_path / 'mlflow.db'}"
    client = MlflowClient(uri)
    experiment = client.create_experiment("cmp", (tmp_path / "mlruns").as_uri())

    def add_run(name: str, shift: float, ids: list[str]) -> str:
        rng = random.Random(name)
        run = client.create_run(experiment, run_name=name).info.run_id
        path = tmp_path / run / "per_question.jsonl"  # the name the harness gives the table
        path.parent.mkdir()
        rows = [{"question_id": q, "retrieval/ndcg_at_5": min(1.0, rng.random() * 0.5 + shift)} for q in ids]
        path.write_text("".join(json.dumps(r) + "\n" for r in rows))
        client.log_artifact(run, str(path))
        client.set_terminated(run)
        return run

    return uri, client, add_run


IDS = [f"q{i}" for i in range(40)]


def test_compare_two_runs_by_name_prints_and_logs_the_report(store, capsys):
    uri, client, add_run = store
    add_run("chunker=a,retriever=x", 0.4, IDS)
    challenger = add_run("chunker=b,retriever=x", 0.0, IDS)
    assert compare(["chunker=a,retriever=x", challenger[:7], "--experiment", "cmp", "--tracking-uri", uri]) == 0
    out = capsys.readouterr().out
    read = " ".join(out.split())  # as read, whatever the console's width wraps
    assert "champion: chunker=a,retriever=x" in read and "winner champion" in read and "worse: the interval" in read
    assert f"  {challenger}  chunker=b,retriever=x" in out  # the chosen run ids are printed
    logged = [r for r in client.search_runs([client.get_experiment_by_name("cmp").experiment_id])
              if r.data.tags.get("harness.role") == "comparison"]
    assert len(logged) == 1
    assert {a.path for a in client.list_artifacts(logged[0].info.run_id)} == {"stats.csv", "stats_verdicts.csv", "stats.png",
                                                                               "stats_settings.json"}


def test_compare_an_experiment_against_the_best_run(store, capsys):
    uri, _, add_run = store
    add_run("low", 0.0, IDS)
    add_run("high", 0.45, IDS)
    add_run("mid", 0.2, IDS)
    assert compare(["--experiment", "cmp", "--tracking-uri", uri, "stats.test=wilcoxon"]) == 0
    assert "champion: high" in capsys.readouterr().out


def test_runs_scored_on_different_questions_are_refused_with_the_ids(store, capsys):
    uri, _, add_run = store
    add_run("a", 0.2, IDS)
    add_run("b", 0.2, IDS[:-1] + ["extra_7"])
    assert compare(["a", "b", "--experiment", "cmp", "--tracking-uri", uri]) == 2
    err = capsys.readouterr().err
    assert "different questions" in err and "q39" in err and "extra_7" in err


def test_unknown_run_and_usage_errors(store, capsys):
    uri, _, add_run = store
    add_run("a", 0.2, IDS)
    assert compare(["a", "nope", "--experiment", "cmp", "--tracking-uri", uri]) == 2
    assert "no run with id, id prefix or name 'nope' in experiment 'cmp'" in capsys.readouterr().err
    assert compare(["a", "a", "--tracking-uri", uri]) == 2  # names are looked up in the config's experiment
    err = capsys.readouterr().err
    assert "no experiment 'harness'" in err and "(experiments: Default, cmp)" in err
    with pytest.raises(SystemExit):
        compare(["a", "--tracking-uri", uri])


def test_a_name_several_runs_carry_is_refused_listing_their_ids(store, capsys):
    uri, _, add_run = store
    first, second = add_run("a", 0.2, IDS), add_run("a", 0.3, IDS)
    add_run("b", 0.2, IDS)
    assert compare(["a", "b", "--experiment", "cmp", "--tracking-uri", uri]) == 2
    err = capsys.readouterr().err
    assert "'a' is ambiguous in experiment 'cmp', 2 runs" in err and first in err and second in err
    assert compare([second[:8], "b", "--experiment", "cmp", "--tracking-uri", uri]) == 0
    assert f"champion: a (run {second})" in capsys.readouterr().out


@pytest.mark.slow
def test_compare_an_experiment_reproduces_the_sweeps_own_report(tmp_path, capsys):
    """A real sweep with a guard, Wilcoxon and BH; compare reads those settings back from the sweep."""
    import csv
    import os
    import sys

    uri = f"sqlite:///{tmp_path / 'mlflow.db'}"
    done = forked(
        [sys.executable, "-m", "harness", "-m", f"tracking.tracking_uri={uri}",
         f"tracking.artifact_location={tmp_path / 'mlruns'}", f"cache.dir={tmp_path / 'cache'}",
         f"hydra.sweep.dir={tmp_path / 'sweep'}", "experiment_name=rep", "retriever=bm25",
         "chunker=none,recursive,markdown_sections", "stats.test=wilcoxon", "stats.correction=bh",
         "stats.guards=[{name: key_facts/coverage_exact, direction: higher, margin: 0.02}]"],
        cwd=tmp_path, env={**os.environ, "HF_HUB_OFFLINE": "1", "PYTHONWARNINGS": "ignore"},
        capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]

    def corrected(rows) -> dict:
        return {(r["challenger"], r["metric"]): r["p_corrected"] for r in rows}

    with (tmp_path / "sweep" / "stats.csv").open() as handle:
        sweep = corrected(csv.DictReader(handle))
    assert compare(["--experiment", "rep", "--tracking-uri", uri]) == 0
    out = " ".join(capsys.readouterr().out.split())  # a long table title may wrap at 120 columns
    assert "statistics settings of sweep run" in out and "(p corrected: bh)" in out
    client = MlflowClient(uri)
    logged = next(r for r in client.search_runs([client.get_experiment_by_name("rep").experiment_id])
                  if r.data.tags.get("harness.role") == "comparison")
    path = client.download_artifacts(logged.info.run_id, "stats.csv", str(tmp_path))
    with open(path) as handle:
        again = corrected(csv.DictReader(handle))
    assert len(sweep) == 4 and ("chunker=none", "key_facts/coverage_exact") in sweep  # the guard too
    assert again == sweep
    assert any(float(p) < 0.05 for p in sweep.values() if p)  # a real difference, not all-untestable
    # A stats override on the command line still wins over the logged settings.
    assert compare(["--experiment", "rep", "--tracking-uri", uri, "stats.correction=holm"]) == 0
    assert "(p corrected: holm)" in " ".join(capsys.readouterr().out.split())
