"""Each run's MLflow description: what it varied, its verdict against the champion, its
self-check, its headline figures with their units."""

from __future__ import annotations

from mlflow.tracking import MlflowClient

from harness.tracking.verdicts.description import NOTE, describe_runs, description
from harness.tracking.mlflow.tracker import MLflowTracker
from tests.stats.test_report import settings, table


def test_every_run_gets_a_description_with_its_verdict_and_units(tmp_path):
    tracker = MLflowTracker(f"sqlite:///{tmp_path / 'mlflow.db'}", "notes", str(tmp_path / "mlruns"), ui_hint=False)
    client = MlflowClient(tracker.tracking_uri)
    experiment = client.get_experiment_by_name("notes") or client.get_experiment(tracker._experiment())
    names = {"retriever=bm25": 0.0, "retriever=dense": 0.5}
    report = settings().compare({name: table(shift, i + 1) for i, (name, shift) in enumerate(names.items())})
    summaries = [{"name": name, "run_id": client.create_run(experiment.experiment_id, run_name=name).info.run_id,
                  "metrics": {"retrieval/mrr": 0.5 + shift, "judge/likelihood_correctness_selfcheck_passed": 1.0,
                              "judge/likelihood_correctness_selfcheck_auc": 0.9,
                              "judge/likelihood_correctness_selfcheck_n": 20.0}}
                 for name, shift in names.items()]
    describe_runs(tracker, summaries, ["retrieval/mrr", "answer/f1"], report)
    notes = {s["name"]: client.get_run(s["run_id"]).data.tags[NOTE] for s in summaries}
    assert report.champion == "retriever=dense"
    assert "**Verdict:** **champion** of the sweep (best on retrieval/mrr)" in notes["retriever=dense"]
    challenger = notes["retriever=bm25"]
    assert "**Varied:** retriever=bm25" in challenger
    assert "**worse** at margin 0.01 against the champion retriever=dense: retrieval/mrr -" in challenger
    assert "Winner **champion**: " in challenger
    assert "95% CI (holm) [" in challenger and "p (holm)" in challenger and "at margin 0.01" in challenger
    assert "likelihood_correctness passed (AUC 0.900 over 20 pairs)" in challenger
    assert "- retrieval/mrr: 0.5 (mean reciprocal rank, 0-1)" in challenger
    assert "answer/f1" not in challenger  # a headline metric the run lacks is left out


def test_a_single_run_and_a_failed_selfcheck():
    text = description({"name": "demo", "metrics": {"judge/answer_score_selfcheck_passed": 0.0}}, [], None)
    assert "no comparison" in text and "answer_score **failed**: its scores are not evidence" in text
