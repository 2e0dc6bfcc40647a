"""The stats config group's SweepStatistics: champion choice, comparison, rendering, planning."""

from __future__ import annotations

import random

import pytest
from hydra.utils import instantiate

from harness.stats.paired import MisalignedError
from harness.stats.report import NoStatistics, SweepStatistics


def settings(**changes):
    base = dict(alpha=0.05, power=0.8, primary={"name": "retrieval/mrr", "direction": "higher", "margin": 0.01},
                guards=[{"name": "key_facts/coverage_exact", "direction": "higher", "margin": 0.02}],
                test="t", resamples=200, seed=0, correction="holm", champion=None,
                planning_effects=[0.2, 0.5, 0.8])
    return SweepStatistics(**{**base, **changes})


def table(shift: float, seed: int, n: int = 30, ids=None) -> list[dict]:
    rng = random.Random(seed)
    return [{"question_id": qid, "retrieval/mrr": min(1.0, max(0.0, rng.random() * 0.5 + shift)),
             "key_facts/coverage_exact": rng.random()} for qid in (ids or [f"q{i}" for i in range(n)])]


def test_the_champion_is_the_best_run_on_the_primary_metric():
    report = settings().compare({"low": table(0.0, 1), "high": table(0.5, 2), "mid": table(0.25, 3)})
    assert report.champion == "high"
    assert {c.name for c in report.result.challengers} == {"low", "mid"}
    low = next(c for c in report.result.challengers if c.name == "low")
    assert low.verdict.winner == "champion"
    assert report.run_metrics["low"]["stats/mean_diff/retrieval/mrr"] < 0
    assert "stats/p_holm/retrieval/mrr" in report.run_metrics["low"]
    assert "stats/ci_low/key_facts/coverage_exact" in report.run_metrics["low"]
    assert report.table_csv.splitlines()[0].startswith("challenger,metric,role")


def test_lower_is_better_picks_the_lowest_and_a_named_champion_wins_over_the_rule():
    tables = {"a": table(0.0, 1), "b": table(0.5, 2)}
    assert settings(primary={"name": "retrieval/mrr", "direction": "lower", "margin": 0.01}).compare(tables).champion == "a"
    assert settings(champion="b").compare(tables).champion == "b"
    with pytest.raises(ValueError, match="stats.champion 'zzz' is not among the runs"):
        settings(champion="zzz").compare(tables)


def test_bad_inputs_are_refused_with_a_reason():
    with pytest.raises(ValueError, match="at least two finished runs"):
        settings().compare({"only": table(0, 1)})
    with pytest.raises(ValueError, match=r"primary metric 'answer/f1' \(stats.primary.name\) has no value in run\(s\) \['a', 'b'\]"):
        settings(primary={"name": "answer/f1", "direction": "higher", "margin": 0.01}).compare({"a": table(0, 1), "b": table(0, 2)})
    with pytest.raises(MisalignedError, match="q99"):
        settings().compare({"a": table(0, 1, ids=["q1", "q2", "q3"]), "b": table(0, 2, ids=["q1", "q2", "q99"])})


def test_missing_values_are_dropped_and_counted():
    a, b = table(0.0, 1), table(0.1, 2)
    a[0]["retrieval/mrr"] = None
    report = settings().compare({"a": a, "b": b})
    comparison = report.result.challengers[0].metrics[0]
    assert comparison.n == 29 and comparison.missing == 1


def test_power_plan_reproduces_seed_003_table():
    text = settings().plan(100)
    assert "d=0.2: 197, d=0.5: 32, d=0.8: 13" in text
    assert "Cohen's d = 0.280 (z)" in text


def test_plot_is_written(tmp_path):
    report = settings().compare({"a": table(0.0, 1), "b": table(0.5, 2), "c": table(0.2, 3)})
    path = report.plot(tmp_path / "stats.png")
    assert path.read_bytes()[:4] == b"\x89PNG"


def test_stats_options_compose_and_instantiate(compose):
    stats = instantiate(compose(["experiment=demo_sweep"]).stats)
    assert isinstance(stats, SweepStatistics)
    assert stats.primary_name is None and stats.headline[0] == "retrieval/ndcg_at_5"
    assert [(m.name, m.margin) for m in stats.guards] == [("key_facts/coverage_exact", 0.02)]
    assert isinstance(instantiate(compose(["stats=none"]).stats), NoStatistics)


def test_printed_report_fits_120_columns_with_short_names():
    from rich.console import Console

    from harness.tracking.verdicts.statistics import print_report

    names = [f"chunker={c},stats.guards=[x],retriever=bm25" for c in ("fixed_tokens", "recursive", "markdown_sections")]
    report = settings().compare({names[0]: table(0.0, 1), names[1]: table(0.5, 2), names[2]: table(0.25, 3)})
    console = Console(width=120, record=True)
    print_report(report, console=console)
    text = console.export_text()
    assert max(len(line) for line in text.splitlines()) <= 120
    assert "(chunker): recursive" in text and "markdown_sections" in text and "[-" in text
    assert "key_facts/coverage_exact" in text


def test_a_null_primary_is_the_first_headline_metric_the_runs_have():
    stats = settings(primary={"name": None, "direction": "higher", "margin": 0.01}, guards=[],
                     headline=["retrieval/ndcg_at_5", "answer/f1", "retrieval/mrr"])
    # Predictions only: retrieval columns absent or null, so answer/f1 leads although mrr is listed too.
    rows = {name: [{"question_id": f"q{i}", "retrieval/ndcg_at_5": None, "answer/f1": (i * k % 7) / 7}
                   for i in range(12)] for name, k in (("a", 1), ("b", 3))}
    report = stats.compare(rows)
    assert report.settings["primary"] == {"name": "answer/f1", "direction": "higher", "margin": 0.01}
    assert [m.spec.name for m in report.result.challengers[0].metrics] == ["answer/f1"]
    with pytest.raises(ValueError, match=r"primary metric 'retrieval/mrr' .* no value in run\(s\) \['a', 'b'\].*app.top_k"):
        settings(headline=["answer/f1"]).primary_for(rows)  # a named primary stays, and is named when missing
    with pytest.raises(ValueError, match="none of the headline metrics"):
        settings(primary={"name": None, "direction": "higher", "margin": 0.01}, headline=["judge/answer_score"]).primary_for(rows)


def test_a_null_primary_some_runs_lack_is_the_first_headline_metric_every_run_has(caplog):
    # An app swept over top_k=1,3,5: the top_k=3 run has no ndcg_at_5.
    stats = settings(primary={"name": None, "direction": "higher", "margin": 0.01}, guards=[],
                     headline=["retrieval/ndcg_at_5", "retrieval/mrr"])
    rows = {name: [{"question_id": f"q{i}", "retrieval/mrr": (i * k % 7) / 7,
                    **({"retrieval/ndcg_at_5": (i * k % 5) / 5} if name != "top_k=3" else {})} for i in range(12)]
            for name, k in (("top_k=3", 1), ("top_k=5", 3))}
    with caplog.at_level("WARNING", logger="harness.stats.report"):
        assert stats.primary_for(rows).name == "retrieval/mrr"
    assert "retrieval/ndcg_at_5 is missing from run(s) ['top_k=3']" in caplog.text and "app.top_k" in caplog.text
    assert stats.compare(rows).settings["primary"]["name"] == "retrieval/mrr"


def test_plot_marks_corrected_significance_labels_cis_uncorrected_and_clips_no_title():
    long = "chunker=markdown_sections,retriever=hybrid,retriever.rrf_k=60,retriever.candidates=100"
    report = settings().compare({long: table(0.5, 2), "b": table(0.0, 1), "c": table(0.45, 3)})
    fig = report.figure()
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    width, height = fig.bbox.width, fig.bbox.height
    texts = [axis.title for axis in fig.axes] + [fig._suptitle]
    for text in texts:
        box = text.get_window_extent(renderer)
        assert 0 <= box.x0 and box.x1 <= width and 0 <= box.y0 and box.y1 <= height, text.get_text()
    assert all("CI (holm)" in axis.get_xlabel() and "margin" in axis.get_xlabel() for axis in fig.axes)
    # A filled marker is exactly a challenger whose corrected p-value is below alpha.
    from matplotlib.colors import to_rgba

    seen = set()
    for axis, metric in zip(fig.axes, [m.spec.name for m in report.result.challengers[0].metrics]):
        drawn = [line for line in axis.lines if line.get_marker() == "o"]
        expected = [c for c in report.result.challengers
                    if next(m for m in c.metrics if m.spec.name == metric).mean_difference is not None]
        filled = [to_rgba(line.get_markerfacecolor()) != (1.0, 1.0, 1.0, 1.0) for line in drawn]
        significant = [next(m for m in c.metrics if m.spec.name == metric).p_corrected < 0.05 for c in expected]
        assert filled == significant
        seen.update(significant)
    assert seen == {True, False}  # both kinds are drawn (b is far below the champion, c is not)


@pytest.mark.parametrize("changes, named", [
    ({"correction": "hlom"}, "stats.correction"),
    ({"test": "ttest"}, "stats.test"),
    ({"alpha": 1.5}, "stats.alpha"),
    ({"power": 0}, "stats.power"),
    ({"resamples": 0}, "stats.resamples"),
    ({"planning_effects": [0.2, 0]}, "stats.planning_effects"),
    ({"primary": {"name": "retrieval/mrr", "direction": "up", "margin": 0.01}}, "direction"),
    ({"primary": {"name": "retrieval/mrr", "direction": "higher"}}, "stats.primary.margin"),
    ({"planning_sds": [0.1, 0]}, "stats.planning_sds"),
])
def test_settings_are_validated_on_construction_naming_the_argument(changes, named):
    with pytest.raises(ValueError, match=named):
        settings(**changes)
