"""The end-of-sweep console summary of a demo-like sweep (9 runs, 3 routes, a guard) fits one
screen: at most 60 lines, none wider than 120 columns, every label in the legend."""

from __future__ import annotations

import random

from harness.stats.sweep_report import StatsReport
from harness.tracking.sweep import callback
from harness.tracking.verdicts.statistics import print_brief_report, print_report
from tests.stats.test_report import settings, table

CHUNKERS, RETRIEVERS = ("fixed_tokens", "recursive", "markdown_sections"), ("bm25", "dense", "hybrid")
ROUTES = {"sales_kpi": 8, "hr_kpi": 7, "rag_docs": 71}


def _summaries() -> list[dict]:
    rng = random.Random(0)
    summaries = []
    for job, (chunker, retriever) in enumerate((c, r) for c in CHUNKERS for r in RETRIEVERS):
        metrics = {name: rng.random() for name in ("retrieval/ndcg_at_5", "retrieval/mrr", "retrieval/hit_at_5",
                                                   "key_facts/coverage_exact", "answer/f1", "answer/bertscore_f1",
                                                   "judge/likelihood_correctness", "routes/routing_accuracy",
                                                   "routes/quality", "routes/pass_rate", "routes/success_rate",
                                                   "routes/two_tier")}
        metrics.update({"context_delta/delta_pp": 12.5, "generation/seconds_per_answer_batched": 1.2345})
        for route, questions in ROUTES.items():
            metrics.update({f"routes/by_route/{route}/questions": float(questions),
                            f"routes/by_route/{route}/answered": 1.0,
                            **{f"routes/by_route/{route}/{c}": rng.random()
                               for c in ("routing_accuracy", "quality", "pass_rate", "success_rate", "two_tier")}})
        summaries.append({"job_num": job, "name": f"chunker={chunker},retriever={retriever}", "status": "FINISHED",
                          "metrics": metrics})
    return summaries


def _report(summaries: list[dict]) -> StatsReport:
    return settings().compare({s["name"]: table(0.05 * s["job_num"], s["job_num"]) for s in summaries})


def test_the_brief_summary_of_a_demo_like_sweep_fits_one_screen(compose, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "120")  # what a log or a pipe gets (pytest-xdist workers may say otherwise)
    config = compose(["experiment=demo_sweep"])
    assert config.report.console == "brief"
    summaries = _summaries()
    callback._report(summaries, config, None, title="demo: 9 runs")
    print_brief_report(_report(summaries), width=120)
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) <= 60, "\n".join(lines)
    assert max(map(len, lines)) <= 120, max(lines, key=len)
    # every headline label has its legend line, with its unit
    assert "cov = key_facts/coverage_exact (share of key facts, 0-1)" in lines
    assert any(line.startswith("judge = judge/likelihood_correctness (probability") for line in lines)
    # routes pivoted: one row per job; statistics: one line per challenger
    assert sum(line.lstrip().startswith(tuple(f"{j}  " for j in range(9))) for line in lines) == 2 * 9
    assert sum("markdown_sections, hybrid" in line for line in lines) == 3  # leaderboard, routes, statistics


def test_full_keeps_every_table(compose, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "120")
    config = compose(["experiment=demo_sweep", "report.console=full"])
    summaries = _summaries()
    callback._report(summaries, config, None, title="demo: 9 runs")
    print_report(_report(summaries))
    out = capsys.readouterr().out
    assert "per route (1/2)" in out and "Paired comparison with the champion" in out
    assert len(out.splitlines()) > 100


def test_a_single_run_prints_with_the_sweeps_renderer_legend_and_width(compose, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "120")
    config = compose(["experiment=demo_sweep"])
    callback._report(_summaries()[:1], config, None, title="demo: chunker=fixed_tokens,retriever=bm25")
    lines = capsys.readouterr().out.splitlines()
    assert max(map(len, lines)) <= 120
    header = next(line for line in lines if line.lstrip().startswith("job"))
    assert header.split()[:5] == ["job", "run", "ndcg@5", "mrr", "hit@5"] and "cov" in header.split()
    assert "cov = key_facts/coverage_exact (share of key facts, 0-1)" in lines  # the same legend
    assert not any("coverage_e" in line and "coverage_exact" not in line for line in lines)  # no word cut


def test_the_power_plan_fits_the_consoles_width(compose):
    """The plan's line of questions needed by spread (282 columns before) wraps at 120."""
    from hydra.utils import instantiate

    statistics = instantiate(compose(["experiment=demo_sweep"]).stats)
    lines = statistics.plan(86).splitlines()
    assert max(map(len, lines)) <= 120, max(lines, key=len)
    assert any("sd 0.3:" in line for line in lines)
