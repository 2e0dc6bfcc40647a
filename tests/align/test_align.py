"""``harness align`` on synthetic labels whose right combination is known: recovered weights,
held-out vs in-sample agreement, align.csv, MLflow logging, pairwise labels, and the metric config
loaded by a later run."""

from __future__ import annotations

import csv
import json
import os
import sys

import numpy as np
import pytest

from harness.align.evaluate import align
from harness.align.settings import AlignSettings
from harness.cli.align import main
from harness.human.table import read_run_table
from tests.forkserver import run as forked
from tests.metaeval.conftest import labels_file, run_folder, write_jsonl

QUESTIONS = 60
# small searches keep the tests fast: 3 outer folds, 2 inner, 2 penalties, 50 bootstrap resamples
FAST = ["meta_eval.bootstrap.resamples=50", "meta_eval.align.outer_folds=3", "meta_eval.align.inner_folds=2",
        "meta_eval.align.alphas=[0.1,10.0]"]


def synthetic(seed: int = 0) -> tuple[dict[str, list], np.ndarray]:
    """Columns m/a (mean 10, sd 3), m/b and two noise columns; human = 2 a - b + small noise."""
    rng = np.random.default_rng(seed)
    a, b = rng.normal(10, 3, QUESTIONS), rng.normal(0, 1, QUESTIONS)
    human = 2 * a - b + rng.normal(0, 0.3, QUESTIONS)
    columns = {"m/a": list(a), "m/b": list(b), "m/noise1": list(rng.normal(0, 1, QUESTIONS)),
               "m/noise2": list(rng.uniform(0, 1, QUESTIONS))}
    return columns, human


def test_absolute_labels_recover_the_combination_and_held_out_is_below_in_sample_on_noise(tmp_path, capsys):
    columns, human = synthetic()
    run = run_folder(tmp_path, "run", columns)
    rng = np.random.default_rng(1)
    labels = labels_file(tmp_path / "labels.jsonl", "quality",
                         {"alice": list(human + rng.normal(0, 0.2, QUESTIONS)),
                          "bob": list(human + rng.normal(0, 0.2, QUESTIONS))})
    out, conf = tmp_path / "report", tmp_path / "conf"
    assert main([str(run), "--labels", str(labels), "--no-tracking", "--out-dir", str(out), "--config-dir", str(conf),
                 "--name", "quality", *FAST]) == 0
    printed = capsys.readouterr().out
    assert "ceiling (annotator vs annotator, 1 pair(s))" in printed and "+metrics/aligned=quality" in printed
    with (out / "align.csv").open() as handle:
        reader = csv.DictReader(handle)
        assert reader.fieldnames == ["column", "split", "pearson", "pearson_ci_low", "pearson_ci_high", "spearman",
                                     "spearman_ci_low", "spearman_ci_high", "kendall", "kendall_ci_low",
                                     "kendall_ci_high", "n"]
        rows = {(r["column"], r["split"]): r for r in reader}
    assert {split for _, split in rows} == {"in_sample", "held_out"}
    assert float(rows[("aligned", "held_out")]["pearson"]) > 0.99
    assert float(rows[("aligned", "held_out")]["pearson"]) > float(rows[("m/a", "held_out")]["pearson"])
    for noise in ("m/noise1", "m/noise2"):  # in-sample the fit finds a sign for noise; held-out it cannot
        assert float(rows[(noise, "held_out")]["pearson"]) < float(rows[(noise, "in_sample")]["pearson"])
        assert float(rows[(noise, "in_sample")]["pearson"]) >= 0
    assert rows[("aligned", "held_out")]["n"] == str(QUESTIONS) and (out / "align.png").stat().st_size > 0
    import yaml

    text = (conf / "metrics" / "aligned" / "quality.yaml").read_text()
    assert text.startswith("# @package metrics.aligned.models.quality\n")
    model = yaml.safe_load(text)
    assert model["weights"]["m/a"] == pytest.approx(2.0, rel=0.03)
    assert model["weights"]["m/b"] == pytest.approx(-1.0, rel=0.1)
    assert abs(model["weights"]["m/noise1"]) < 0.1 and abs(model["weights"]["m/noise2"]) < 0.5
    assert len(model["provenance"]["labels_sha256"]) == 64 and model["provenance"]["held_out"]["pearson"] > 0.99


def test_pairwise_preferences_recover_the_weights_of_the_differences(tmp_path, settings_for):
    rng = np.random.default_rng(2)
    a_cols = {"m/a": rng.normal(0, 1, QUESTIONS), "m/b": rng.normal(0, 1, QUESTIONS),
              "m/noise": rng.normal(0, 1, QUESTIONS)}
    b_cols = {c: v + rng.normal(0, 1, QUESTIONS) for c, v in a_cols.items()}
    run_a = run_folder(tmp_path, "a", {c: list(v) for c, v in a_cols.items()})
    run_b = run_folder(tmp_path, "b", {c: list(v) for c, v in b_cols.items()})
    diff = {c: b_cols[c] - a_cols[c] for c in a_cols}
    rows = []
    for annotator in ("alice", "bob"):
        preference = 0.5 * diff["m/a"] - 0.25 * diff["m/b"] + rng.normal(0, 0.05, QUESTIONS)
        rows += [{"question_id": f"q{i + 1}", "annotator": annotator, "preference": float(p)}
                 for i, p in enumerate(preference)]
    labels = write_jsonl(tmp_path / "prefs.jsonl", rows)
    report = align([read_run_table(run_a), read_run_table(run_b)], labels, settings_for(FAST),
                   AlignSettings.of(settings_for(FAST).align), scale=None)
    assert report.kind == "pairwise" and len(report.design.y) == 2 * QUESTIONS  # every annotator's row
    assert report.combination.weights["m/a"] == pytest.approx(0.5, rel=0.05)
    assert report.combination.weights["m/b"] == pytest.approx(-0.25, rel=0.1)
    assert abs(report.combination.weights["m/noise"]) < 0.05 and report.combination.intercept == 0.0
    assert report.figure("aligned", "held_out") > 0.95
    assert main([str(run_a), str(run_b), "--labels", str(labels), "--pairwise", "--scale", "-10", "10",
                 "--no-tracking", "--out", str(tmp_path / "p.yaml"), *FAST]) == 0


def test_grouped_folds_never_split_a_question(tmp_path, settings_for):
    columns, human = synthetic()
    labels = labels_file(tmp_path / "l.jsonl", "q", {"x": list(human), "y": list(human + 1)})
    report = align([read_run_table(run_folder(tmp_path, "run", columns))], labels, settings_for(FAST),
                   AlignSettings.of(settings_for(FAST).align))
    groups = report.design.groups
    for train, test in report.settings.folds(5, QUESTIONS).split(report.design.x, report.design.y, groups):
        assert not set(groups[train]) & set(groups[test])
    assert len(groups) == len(set(groups)) == QUESTIONS  # absolute: one row per question (the mean rating)


def test_refusals_name_the_problem(tmp_path, capsys, settings_for):
    columns, human = synthetic()
    run = run_folder(tmp_path, "run", columns)
    labels = labels_file(tmp_path / "l.jsonl", "q", {"x": list(human)})
    with pytest.raises(SystemExit):
        main([str(run), "--labels", str(labels), "--no-tracking", "--name", "bad-name"])
    assert "--name must be a plain identifier" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main([str(run), "--labels", str(labels), "--pairwise"])
    assert "give two runs, A then B, with --pairwise" in capsys.readouterr().err
    assert main([str(run), "--labels", str(labels), "--no-tracking", "--exclude", "m/*"]) == 2
    assert "no numeric column covers" in capsys.readouterr().err
    with pytest.raises(ValueError, match="outer_folds and inner_folds must be >= 2"):
        AlignSettings.of({**settings_for().align, "outer_folds": 1})


def test_logs_an_align_run_to_mlflow(tmp_path, capsys, monkeypatch):
    from mlflow.tracking import MlflowClient

    monkeypatch.chdir(tmp_path)
    columns, human = synthetic()
    run = run_folder(tmp_path, "run", columns)
    labels = labels_file(tmp_path / "labels.jsonl", "quality", {"a1": list(human)})
    uri = f"sqlite:///{tmp_path / 'mlflow.db'}"
    assert main([str(run), "--labels", str(labels), "--tracking-uri", uri, *FAST]) == 0
    assert "Logged as run" in capsys.readouterr().out
    client = MlflowClient(tracking_uri=uri)
    (logged,) = client.search_runs([client.get_experiment_by_name("harness").experiment_id])
    assert logged.data.tags["harness.role"] == "align"
    assert logged.data.metrics["align/held_out/pearson/aligned"] > 0.99
    assert logged.data.metrics["align/weight/m/a"] == pytest.approx(2.0, rel=0.03)
    assert {a.path for a in client.list_artifacts(logged.info.run_id)} >= {"align.csv", "align.png", "judge.yaml"}
    assert (tmp_path / "conf" / "metrics" / "aligned" / "judge.yaml").is_file()  # default --config-dir ./conf


@pytest.mark.slow
def test_the_metric_config_loads_in_a_later_run_as_a_column(tmp_path):
    columns, human = synthetic()
    (tmp_path / "docs").mkdir()
    questions, preds = [], []
    for i in range(QUESTIONS):
        (tmp_path / "docs" / f"d{i}.txt").write_text(f"Document {i} says {i}.", encoding="utf-8")
        questions.append({"id": f"q{i + 1}", "domain": "d", "difficulty": "easy", "question": f"What does {i} say?",
                          "ground_truth": f"{i}", "source": f"d{i}"})
        preds.append({"question_id": f"q{i + 1}", "answer": f"{i}",
                      "metrics": {c.split("/")[1]: values[i] for c, values in columns.items()}})
    write_jsonl(tmp_path / "questions.jsonl", questions)
    write_jsonl(tmp_path / "preds.jsonl", preds)
    labels = labels_file(tmp_path / "labels.jsonl", "quality", {"a1": list(human)})

    def harness(folder: str, *extra: str) -> list[dict]:
        command = [sys.executable, "-m", "harness", *extra, "dataset=questions_jsonl", "dataset.name=synthetic",
                   f"dataset.questions={tmp_path / 'questions.jsonl'}", f"dataset.documents={tmp_path / 'docs'}",
                   "chunker=none", "generator=predictions", f"generator.path={tmp_path / 'preds.jsonl'}",
                   "metrics.answer.bertscore=null", "tracking=none", f"cache.dir={tmp_path / 'cache'}",
                   f"hydra.run.dir={tmp_path / folder}"]
        done = forked(command, cwd=tmp_path, env=dict(os.environ),
                      capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
        return [json.loads(line) for line in (tmp_path / folder / "per_question.jsonl").open()]

    harness("first")
    assert main([str(tmp_path / "first"), "--labels", str(labels), "--no-tracking", "--config-dir",
                 str(tmp_path / "conf"), "--name", "quality", "--exclude", "answer/*", "retrieval/*", *FAST]) == 0
    import yaml

    model = yaml.safe_load((tmp_path / "conf" / "metrics" / "aligned" / "quality.yaml").read_text())
    assert set(model["weights"]) == {f"external/{c.split('/')[1]}" for c in columns}
    rows = harness("later", "--config-dir", str(tmp_path / "conf"), "+metrics/aligned=quality")
    expected = [model["intercept"] + sum(w * row[c] for c, w in model["weights"].items()) for row in rows]
    assert [row["aligned/quality"] for row in rows] == pytest.approx(expected, rel=1e-9)
    assert np.corrcoef([row["aligned/quality"] for row in rows], human)[0, 1] > 0.99
