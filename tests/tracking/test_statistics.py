"""The sweep's statistics at the edge: read each job's table, print, write and log through the tracker."""

from __future__ import annotations

import json

import pytest
from mlflow.tracking import MlflowClient

from harness.results.table import write_table
from harness.tracking.mlflow.tracker import MLflowTracker
from harness.tracking.verdicts.statistics import report_sweep_statistics
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


def test_the_front_is_printed_under_the_champion_and_tagged_on_the_parent_and_each_run(tmp_path, sweep, capsys):
    from tests.stats.test_front import FRONT

    tracker, parent, client, summaries = sweep
    rows = table(0.5, 2)
    write_table(tmp_path / "0", [{**row, "retrieval/mrr": row["retrieval/mrr"] - 0.4 - 0.01 * (i % 3)}
                                 for i, row in enumerate(rows)])
    write_table(tmp_path / "1", rows)
    write_table(tmp_path / "2", [{**row, "retrieval/mrr": row["retrieval/mrr"] + 0.01 * (-1) ** i - 0.001}
                                 for i, row in enumerate(rows)])  # tied with the champion
    summaries[2]["name"] = "cheap"
    for job, memory in enumerate([4e6, 4e6, 1e6]):
        (tmp_path / str(job) / "metrics.json").write_text(json.dumps(
            {"info": {"index_bytes": memory, "retrieval_seconds_per_query": 0.01}}))
    report_sweep_statistics(settings(front=FRONT, guards=[]), summaries, tmp_path, tracker, parent)
    out = capsys.readouterr().out
    block = " ".join(out[out.index("Ship candidates"):].split())  # as read, whatever the console's width
    assert block.startswith("Ship candidates: 1 of 3 configurations on the front (shown as good as the champion "
                            "on mrr at margin 0.01 and not dominated; 0 cheaper or faster but undecided; 2 others: "
                            "dominated, shown worse, or not cheaper or faster than the champion)")
    assert " cheap: equivalent to the champion at margin 0.01, 4.0x smaller " in block
    from harness.console import console

    start = out.index("Ship candidates")
    raw = out[start:out.index("cheap: equivalent", start)]  # wrapped to the console, nothing cut
    assert max(len(line) for line in raw.splitlines()) <= console().width
    record = json.loads((tmp_path / "front.json").read_text())
    assert record["members"] == ["cheap"] and record["champion"] == "high"
    assert "front.json" in {a.path for a in client.list_artifacts(parent)}
    assert client.get_run(parent).data.tags["harness.front"] == "cheap"
    tags = [client.get_run(s["run_id"]).data.tags["harness.front"] for s in summaries]
    assert tags[2] == "front" and tags[1] == "dominated by cheap" and tags[0].startswith("dominated by ")
