"""The per-route summary printed after a run or sweep."""

from __future__ import annotations

from harness.metrics.routes.report import print_route_summary, route_rows


def summary(job: int, routing: float) -> dict:
    metrics = {"routes/routing_accuracy": routing, "routes/quality": 0.7, "routes/pass_rate": 0.5,
               "retrieval/mrr": 0.9}
    for route, n in (("sales_kpi", 8), ("rag_docs", 71)):
        metrics.update({f"routes/by_route/{route}/questions": float(n), f"routes/by_route/{route}/answered": 2.0,
                        f"routes/by_route/{route}/routing_accuracy": routing,
                        f"routes/by_route/{route}/quality": 0.6 if route == "sales_kpi" else 0.8})
    return {"job_num": job, "name": f"run{job}", "metrics": metrics}


def test_rows_per_job_and_route_plus_all():
    rows = route_rows([summary(0, 1.0), {"job_num": 1, "name": "failed", "metrics": {}}, summary(2, 0.5)])
    assert [(r["job"], r["route"]) for r in rows] == [(0, "sales_kpi"), (0, "rag_docs"), (0, "all"),
                                                      (2, "sales_kpi"), (2, "rag_docs"), (2, "all")]
    first_all = rows[2]
    assert first_all["questions"] == 79 and first_all["answered"] == 4
    assert first_all["routing_accuracy"] == 1.0 and first_all["quality"] == 0.7 and first_all["two_tier"] is None
    assert rows[3]["quality"] == 0.6 and rows[4]["routing_accuracy"] == 0.5


def test_print_shows_routes_and_nothing_without_route_metrics(capsys):
    print_route_summary([{"job_num": 0, "name": "r", "metrics": {"retrieval/mrr": 1.0}}], "t")
    assert capsys.readouterr().out == ""
    print_route_summary([summary(0, 0.75)], "demo")
    out = capsys.readouterr().out
    assert "demo: per route" in out and "sales_kpi" in out and "0.7500" in out and "79" in out


def test_print_fits_120_columns_with_short_names_and_whole_numbers():
    from rich.console import Console

    runs = [{**summary(job, 0.123456), "name": f"chunker={c},metrics=[retrieval,key_facts],retriever=hybrid"}
            for job, c in enumerate(("fixed_tokens", "markdown_sections"))]
    console = Console(width=120, record=True)
    print_route_summary(runs, "demo", console=console)
    text = console.export_text()
    assert max(len(line) for line in text.splitlines()) <= 120
    assert "run: chunker" in text and "markdown_sections" in text and "0.1235" in text


def test_the_routes_suite_contributes_the_per_route_table_and_other_suites_nothing(capsys):
    from harness.metrics.routes.suite import RouteSuite
    from harness.metrics.suites import MetricSuite, RetrievalSuite

    RetrievalSuite.sweep_summary([summary(0, 0.75)], "demo")
    MetricSuite.sweep_summary([summary(0, 0.75)], "demo")
    assert capsys.readouterr().out == ""
    RouteSuite.sweep_summary([summary(0, 0.75)], "demo")
    out = capsys.readouterr().out
    assert "demo: per route" in out and "sales_kpi" in out and "0.7500" in out
