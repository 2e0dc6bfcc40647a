"""End to end: the demo with seed 001's routes, answers and routes from a predictions file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.data.questions_jsonl import load_questions_jsonl
from tests.conftest import PROJECT_ROOT
from tests.e2e.test_sweep import run_cli, runs_of

pytestmark = pytest.mark.slow

DEMO = PROJECT_ROOT / "experiments" / "demo"
# The system under test sends these to the wrong route.
MISROUTED = {"kpi_001": "hr_kpi", "kpi_009": "sales_kpi", "cf_001": "sales_kpi"}


def test_demo_with_kpi_rag_logs_per_route_metrics_and_the_confusion_matrix(tmp_path):
    dataset = load_questions_jsonl("demo", str(DEMO / "questions.jsonl"), str(DEMO / "docs"))
    predictions = tmp_path / "predictions.jsonl"
    with predictions.open("w") as handle:
        for q in dataset.questions:
            handle.write(json.dumps({"question_id": q.id, "answer": q.expected_answer,
                                     "route": MISROUTED.get(q.id, q.route)}) + "\n")
    done = run_cli(tmp_path, "routes=kpi_rag", "router=from_predictions", "generator=predictions",
                   f"generator.path={predictions}", "chunker=none", "retriever=bm25", "stats=none", multirun=False)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    printed = " ".join(done.stdout.split())  # the table's title wraps at the table's own width
    assert "per route" in printed and "sales_kpi" in printed and "hr_kpi" in printed

    client, runs = runs_of(tmp_path)
    (run,) = runs
    metrics = run.data.metrics
    n = len(dataset.questions)
    assert metrics["routes/routing_accuracy"] == pytest.approx((n - 3) / n)
    assert metrics["routes/by_route/sales_kpi/routing_accuracy"] == pytest.approx(7 / 8)
    assert metrics["routes/by_route/hr_kpi/routing_accuracy"] == pytest.approx(6 / 7)
    assert metrics["routes/by_route/rag_docs/routing_accuracy"] == pytest.approx(70 / 71)
    for route in ("sales_kpi", "hr_kpi", "rag_docs"):
        for key in ("quality", "pass_rate", "success_rate", "two_tier", "questions", "answered"):
            assert f"routes/by_route/{route}/{key}" in metrics
    # The expected answers themselves are good answers: most pass their route's threshold.
    assert metrics["routes/pass_rate"] >= 0.8

    artifacts = {a.path for a in client.list_artifacts(run.info.run_id)}
    assert "route_confusion.csv" in artifacts
    confusion = Path(client.download_artifacts(run.info.run_id, "route_confusion.csv", str(tmp_path))).read_text()
    assert confusion.splitlines() == ["expected \\ predicted,sales_kpi,hr_kpi,rag_docs",
                                      "sales_kpi,7,1,0", "hr_kpi,1,6,0", "rag_docs,1,0,70"]

    rows = [json.loads(line) for line in (tmp_path / "run" / "per_question.jsonl").read_text().splitlines()]
    assert {r["question_id"]: r["predicted_route"] for r in rows if r["predicted_route"] != r["route"]} == MISROUTED
    assert metrics["routes/quality"] == pytest.approx(sum(r["routes/quality"] for r in rows) / len(rows))
    misrouted = [r for r in rows if r["question_id"] in MISROUTED]
    assert all(r["routes/two_tier"] == 0.0 and r["routes/success"] == 0.0 for r in misrouted)
    clarification = next(r for r in rows if r["question_id"] == "kpi_015")
    assert clarification["routes/behaviour_detected"] == 1.0
    out_of_scope = next(r for r in rows if r["question_id"] == "kpi_016")
    assert out_of_scope["routes/behaviour_detected"] == 1.0 and out_of_scope["routes/hallucination"] == 0.0
