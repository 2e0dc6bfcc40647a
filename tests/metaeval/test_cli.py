"""``harness meta-eval`` end to end on run folders: printing, files, MLflow logging, errors."""

from __future__ import annotations

from harness.cli.meta_eval import main
from harness.cli.subcommands import SUBCOMMANDS
from tests.metaeval.conftest import labels_file, run_folder


def test_logs_a_meta_eval_run_to_mlflow(tmp_path, capsys, monkeypatch):
    from mlflow.tracking import MlflowClient

    monkeypatch.chdir(tmp_path)
    run = run_folder(tmp_path, "run", {"m/x": [1, 2, 3, 4], "m/y": [4, 3, 2, 1]})
    labels = labels_file(tmp_path / "labels.jsonl", "quality", {"a1": [1, 2, 3, 5], "a2": [1, 2, 4, 5]})
    uri = f"sqlite:///{tmp_path / 'mlflow.db'}"
    assert main([str(run), "--labels", str(labels), "--tracking-uri", uri, "meta_eval.bootstrap.resamples=50"]) == 0
    out = capsys.readouterr().out
    assert "Logged as run" in out and "m/x" in out
    client = MlflowClient(tracking_uri=uri)
    (logged,) = client.search_runs([client.get_experiment_by_name("harness").experiment_id])
    assert logged.data.tags["harness.role"] == "meta_eval"
    assert logged.data.metrics["meta_eval/quality/spearman/m/x"] == 1.0
    assert {a.path for a in client.list_artifacts(logged.info.run_id)} >= {"meta_eval.csv", "meta_eval.png"}


def test_no_tracking_prints_and_errors_exit_2(tmp_path, capsys):
    assert SUBCOMMANDS["meta-eval"][0] == "harness.cli.meta_eval"
    run = run_folder(tmp_path, "run", {"m/x": [1, 2, 3]})
    labels = labels_file(tmp_path / "labels.jsonl", "quality", {"a1": [1, 2, 9]})
    assert main([str(run), "--labels", str(labels), "--no-tracking", "--scale", "1", "5"]) == 2
    assert f"{labels}:3: field 'quality' = 9 is off the declared scale [1, 5]" in capsys.readouterr().err
    assert main([str(run), "--labels", str(labels), "--no-tracking", "--out-dir", str(tmp_path / "o")]) == 0
    assert (tmp_path / "o" / "meta_eval.csv").is_file()
    assert "One annotator: no inter-annotator ceiling" in capsys.readouterr().out


def test_feedback_labels_need_a_run_in_mlflow(tmp_path, capsys):
    run = run_folder(tmp_path, "run", {"m/x": [1, 2, 3]})
    assert main([str(run), "--labels", "mlflow:quality", "--no-tracking", "tracking=none"]) == 2
    assert f"--labels mlflow:quality reads people's feedback on a run's traces in MLflow, but the run was read from " \
           f"a folder ({run / 'per_question.jsonl'}); give the run's id or name in MLflow" in capsys.readouterr().err
    assert main([str(run), "--labels", "mlflow:", "--no-tracking", "tracking=none"]) == 2
    assert "--labels mlflow:: name the feedback to read, e.g. --labels mlflow:quality" in capsys.readouterr().err
