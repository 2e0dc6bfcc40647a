"""`harness compare` against runs written directly into a temporary MLflow store."""

from __future__ import annotations

import json
import random

import pytest
from mlflow.tracking import MlflowClient

from harness.cli.compare import main as compare


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
    assert compare(["chunker=a,retriever=x", challenger, "--tracking-uri", uri]) == 0
    out = capsys.readouterr().out
    assert "champion: chunker=a,retriever=x" in out and "winner champion" in out
    logged = [r for r in client.search_runs([client.get_experiment_by_name("cmp").experiment_id])
              if r.data.tags.get("harness.role") == "comparison"]
    assert len(logged) == 1
    assert {a.path for a in client.list_artifacts(logged[0].info.run_id)} == {"stats.csv", "stats_verdicts.csv", "stats.png"}


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
    assert compare(["a", "b", "--tracking-uri", uri]) == 2
    err = capsys.readouterr().err
    assert "different questions" in err and "q39" in err and "extra_7" in err


def test_unknown_run_and_usage_errors(store, capsys):
    uri, _, add_run = store
    add_run("a", 0.2, IDS)
    assert compare(["a", "nope", "--tracking-uri", uri]) == 2
    assert "no run with id or name 'nope'" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        compare(["a", "--tracking-uri", uri])
