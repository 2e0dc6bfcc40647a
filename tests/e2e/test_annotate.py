"""`harness annotate` end to end: export from a run in MLflow, import filled sheets, log to a
temporary MLflow store; and the shipped demo annotations."""

from __future__ import annotations

import csv
import json
import os
import random
import sys

import numpy as np
import pytest
from mlflow.tracking import MlflowClient
from sklearn.metrics import cohen_kappa_score

from harness.cli.annotate import main as annotate
from harness.human.export import ENCODING
from tests.conftest import PROJECT_ROOT
from tests.forkserver import run as forked
from tests.human.conftest import answered_row, fill_sheet

DEMO = PROJECT_ROOT / "experiments" / "demo" / "annotations"
ARTIFACTS = {"annotations.csv", "agreement.csv", "correlation.csv", "calibration.csv", "report.txt"}


@pytest.fixture
def store(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # the default artifact root (mlruns) and sheets land here
    uri = f"sqlite:///{tmp_path / 'mlflow.db'}"
    return uri, MlflowClient(uri)


def human_eval_runs(client):
    experiments = [e.experiment_id for e in client.search_experiments()]
    return [r for r in client.search_runs(experiments) if r.data.tags.get("harness.role") == "human_eval"]


def sheet_ratings(path, dimension):
    with path.open(encoding=ENCODING, newline="") as handle:
        records = [r for r in csv.reader(handle) if r and not r[0].startswith("#")]
    header = records[0]
    return {row[0]: dict(zip(header, row))[dimension] for row in records[1:]}


def test_the_demo_annotations_import_into_mlflow(store, capsys):
    uri, client = store
    a, b = DEMO / "rater_a.csv", DEMO / "rater_b.csv"
    assert "not a user study" in a.read_text(encoding=ENCODING).splitlines()[0]
    assert annotate(["import", str(DEMO / "run"), str(a), str(b), "--tracking-uri", uri,
                     "experiment_name=demo_annotations"]) == 0
    out = capsys.readouterr().out
    assert "Inter-annotator agreement" in out and "rater_a / rater_b" in out and "Spearman" in out
    [run] = human_eval_runs(client)
    assert client.get_experiment(run.info.experiment_id).name == "demo_annotations"
    assert {f.path for f in client.list_artifacts(run.info.run_id)} == ARTIFACTS
    metrics = run.data.metrics
    assert metrics["human/annotators"] == 2 and metrics["human/questions"] == 20
    for dim, levels in [("relevance", [1, 2, 3, 4, 5]), ("grade", list(range(1, 11))),
                        ("verdict", ["FAIL", "PARTIAL", "PASS"])]:
        ra, rb = sheet_ratings(a, dim), sheet_ratings(b, dim)
        qs = sorted(ra)
        x = [type(levels[0])(ra[q]) for q in qs]
        y = [type(levels[0])(rb[q]) for q in qs]
        assert metrics[f"human/{dim}/kappa/rater_a_vs_rater_b"] == pytest.approx(cohen_kappa_score(x, y, labels=levels))
        assert metrics[f"human/{dim}/kappa_quadratic/rater_a_vs_rater_b"] == pytest.approx(
            cohen_kappa_score(x, y, labels=levels, weights="quadratic"))
    assert "human/relevance/spearman/answer/f1" in metrics
    assert not any(k.endswith("/bias") for k in metrics)  # the demo run has no judge columns


def judged_rows(n: int) -> list[dict]:
    rng = random.Random(0)
    rows = []
    for i in range(n):
        quality = rng.randint(1, 10)
        correct = quality >= 8
        rows.append(answered_row(
            f"q{i:02d}", **{"answer/f1": quality / 10 + rng.random() / 20, "answer/badness": quality / 10,
                            "answer/category_correct": float(correct), "answer/category_wrong_answer": float(not correct),
                            "answer/category_hallucination": float(quality == 1),
                            "judge/manual_grade": min(10, quality + 2), "judge/likert_relevance": None,
                            "quality": quality}))
    return rows


def test_export_by_run_name_then_import_with_judge_calibration(store, tmp_path, capsys):
    uri, client = store
    experiment = client.create_experiment("sweep", (tmp_path / "mlruns").as_uri())
    source = client.create_run(experiment, run_name="chunker=a,retriever=x").info.run_id
    table = tmp_path / "src" / "per_question.jsonl"
    table.parent.mkdir()
    rows = judged_rows(40)
    table.write_text("".join(json.dumps(r) + "\n" for r in rows))
    client.log_artifact(source, str(table))
    client.set_terminated(source)

    assert annotate(["export", "chunker=a,retriever=x", "--strategy", "worst", "--n", "12", "--out", "sheet.csv",
                     "--tracking-uri", uri]) == 0
    assert "worst sample of 12" in capsys.readouterr().out
    exported = sheet_ratings(tmp_path / "sheet.csv", "question_id")
    worst = sorted(rows, key=lambda r: r["answer/badness"])[:12]
    assert set(exported) == {r["question_id"] for r in worst}

    by_id = {r["question_id"]: r for r in rows}
    def grades(shift):  # noqa: E306
        return {q: {"relevance": 3, "faithfulness": 3, "conciseness": 3, "verdict": "FAIL",
                    "grade": max(1, min(10, by_id[q]["quality"] + shift(q)))} for q in exported}
    fill_sheet(tmp_path / "sheet.csv", tmp_path / "a.csv", "ann", grades(lambda q: 0))
    fill_sheet(tmp_path / "sheet.csv", tmp_path / "b.csv", "bob", grades(lambda q: int(q[-1]) % 2))
    assert annotate(["import", source, "a.csv", "b.csv", "--tracking-uri", uri, "--out-dir", "report"]) == 0
    out = capsys.readouterr().out
    assert "Judge vs human" in out and "judge/manual_grade" in out
    assert "relevance: no calibration, 0 rated question(s) have a 'judge/likert_relevance' score" in out

    [run] = human_eval_runs(client)
    assert run.info.experiment_id == experiment and run.data.tags["harness.source_run"] == source
    assert {p.name for p in (tmp_path / "report").iterdir()} == ARTIFACTS
    metrics = run.data.metrics
    human = {q: (by_id[q]["quality"] + max(1, min(10, by_id[q]["quality"] + int(q[-1]) % 2))) / 2 for q in exported}
    judge_all = np.array([r["judge/manual_grade"] for r in rows], dtype=float)
    judge_l = np.array([by_id[q]["judge/manual_grade"] for q in human], dtype=float)
    y = np.array(list(human.values()))
    assert metrics["human/grade/bias"] == pytest.approx(judge_l.mean() - y.mean())
    assert metrics["human/grade/judge_mean"] == pytest.approx(judge_all.mean())
    assert metrics["human/grade/ppi_mean"] == pytest.approx(judge_all.mean() - (judge_l - y).mean())
    assert metrics["human/grade/ppi_ci_low"] < metrics["human/grade/ppi_mean"] < metrics["human/grade/ppi_ci_high"]
    assert "human/grade/spearman/judge/manual_grade" in metrics
    assert client.get_run(source).data.metrics == {}  # the evaluated run is left untouched


def test_errors_exit_2_with_a_clear_message(store, tmp_path, capsys):
    uri, _ = store
    assert annotate(["export", "no-such-run", "--tracking-uri", uri]) == 2
    assert "no run with id or name 'no-such-run'" in capsys.readouterr().err
    assert annotate(["export", "missing/folder", "--tracking-uri", uri]) == 2
    assert "no run folder or per-question table at missing/folder" in capsys.readouterr().err
    (tmp_path / "taken.csv").write_text("ratings")
    assert annotate(["export", str(DEMO / "run"), "--out", "taken.csv", "--tracking-uri", uri]) == 2
    assert "taken.csv exists" in capsys.readouterr().err
    bad = tmp_path / "bad.csv"
    bad.write_text((DEMO / "rater_b.csv").read_text(encoding=ENCODING).replace("rater_b", ""), encoding=ENCODING)
    assert annotate(["import", str(DEMO / "run"), str(DEMO / "rater_a.csv"), str(bad), "--no-tracking"]) == 2
    assert "bad.csv:" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        annotate(["import", str(DEMO / "run"), "--no-tracking"])
    assert not (tmp_path / "mlruns").exists()  # nothing was logged


def test_the_console_script_dispatches_and_documents_annotate(tmp_path):
    env = dict(os.environ)  # PYTHONPATH: this checkout first (tests/conftest.py)
    result = forked([sys.executable, "-m", "harness", "annotate", "import", "--help"], cwd=tmp_path,
                    env=env, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0
    assert "--no-tracking" in result.stdout and "two or more annotators" in result.stdout


def test_a_tracking_failure_keeps_the_computed_report(store, tmp_path, capsys, monkeypatch):
    uri, client = store

    def refuse(*args, **kwargs):
        raise ConnectionError("tracking server went away")

    monkeypatch.setattr(MlflowClient, "log_artifacts", refuse)
    sheets = [str(DEMO / "rater_a.csv"), str(DEMO / "rater_b.csv")]
    assert annotate(["import", str(DEMO / "run"), *sheets, "--tracking-uri", uri]) == 1
    captured = capsys.readouterr()
    assert "Inter-annotator agreement" in captured.out
    assert "tracking server went away" in captured.err and "human_eval_report" in captured.err
    assert {p.name for p in (tmp_path / "human_eval_report").iterdir()} == ARTIFACTS
    [run] = human_eval_runs(client)
    assert run.info.status == "FAILED"  # a half-logged report is not shown as a success


def test_a_bad_override_is_refused_naming_the_key(store, capsys):
    uri, _ = store
    assert annotate(["export", str(DEMO / "run"), "human.confidence=2", "--tracking-uri", uri]) == 2
    assert "human.confidence must lie in (0, 1)" in capsys.readouterr().err
    assert annotate(["export", str(DEMO / "run"), "human.sample.nn=3", "--tracking-uri", uri]) == 2
    assert "nn" in capsys.readouterr().err
