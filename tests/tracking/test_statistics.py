"""The sweep's statistics at the edge: read each job's table, print, write and log through the tracker."""

from __future__ import annotations

import json

import pytest
from mlflow.tracking import MlflowClient

from harness.results.table import write_table
from harness.tracking.mlflow_tracker import MLflowTracker
from harness.tracking.statistics import report_sweep_statistics
from tests.stats.test_report import settings, table


@pytest.fixture
def sweep(tmp_path):
    tracker = MLflowTracker(f"sqlite:///{tmp_path / 'mlflow.db'}", "stats", str(tmp_path / "mlruns"), ui_hint=False)
    parent = tracker.start_sweep("stats sweep", {"harness.role": "sweep"})
    client = MlflowClient(tracker.tracking_uri)
    summaries = []
    for job, (name, shift) in enumerate([("low", 0.0), ("high", 0.5), ("mid", 0.25)]):
        folder = tmp_path / str(job)
        write_table(folder, table(shift, job + 1))
        experiment = client.get_experiment_by_name("stats").experiment_id
        run_id = client.create_run(experiment, run_name=name).info.run_id
        summaries.append({"name": name, "status": "FINISHED", "output_dir": str(folder), "run_id": run_id})
    return tracker, parent, client, summaries


def test_the_report_is_written_logged_to_the_parent_and_each_run_gets_its_figures(tmp_path, sweep, capsys):
    tracker, parent, client, summaries = sweep
    stats = settings(alpha=0.1)
    report_sweep_statistics(stats, summaries, tmp_path, tracker, parent)
    out = capsys.readouterr().out
    assert "90% CI" in out and "Statistics: " in out
    logged = {a.path for a in client.list_artifacts(parent)}
    assert {"stats.csv", "stats_verdicts.csv", "stats_settings.json", "stats.png"} <= logged
    assert json.loads((tmp_path / "stats_settings.json").read_text())["alpha"] == 0.1
    expected = stats.compare({s["name"]: table(shift, job + 1)
                              for job, (s, shift) in enumerate(zip(summaries, (0.0, 0.5, 0.25)))})
    assert (tmp_path / "stats.csv").read_text() == expected.to_csv()
    champion, low = (client.get_run(s["run_id"]).data.metrics for s in summaries[1::-1])
    assert champion == {"stats/is_champion": 1.0}
    assert low["stats/mean_diff/retrieval/mrr"] == pytest.approx(
        expected.run_metrics["low"]["stats/mean_diff/retrieval/mrr"])


def test_bad_input_is_reported_and_logged_never_fatal(tmp_path, sweep, capsys):
    tracker, parent, client, summaries = sweep
    (tmp_path / "0" / "per_question.jsonl").write_text('{"question_id": "q0"}\nnot json\n')
    report_sweep_statistics(settings(), summaries, tmp_path, tracker, parent)
    message = (tmp_path / "stats_not_computed.txt").read_text()
    assert message.startswith("statistics not computed: invalid per-question table")
    assert f"{tmp_path / '0' / 'per_question.jsonl'}:2: not valid JSON" in message
    assert "stats_not_computed.txt" in {a.path for a in client.list_artifacts(parent)}
    assert "statistics not computed" in capsys.readouterr().out
