"""StatsReport renders one comparison as a dataframe, CSV, Markdown and a plot; the CI follows alpha."""

from __future__ import annotations

import csv
import io

import pytest

from harness.stats.sweep_report import ci_label
from tests.stats.test_report import settings, table

TABLES = {"a": table(0.0, 1), "b": table(0.5, 2), "c": table(0.2, 3)}


@pytest.mark.parametrize(("alpha", "label"), [(0.05, "95% CI"), (0.1, "90% CI"), (0.01, "99% CI"), (0.2, "80% CI")])
def test_the_ci_label_follows_alpha(alpha, label):
    assert ci_label(alpha) == label
    report = settings(alpha=alpha).compare(TABLES)
    label += " (holm)"  # the intervals are at the levels the correction tested each comparison at
    assert report.ci_label == label
    assert label in report.summary_columns() and label in report.to_markdown()
    assert "95% CI" not in report.to_markdown() or alpha == 0.05


def test_the_interval_printed_is_the_one_at_that_level():
    """A 90% interval lies inside the 95% one (same resamples and seed)."""
    wide, narrow = (settings(alpha=a).compare(TABLES) for a in (0.05, 0.1))
    for w, n in zip(wide.result.challengers[0].metrics, narrow.result.challengers[0].metrics):
        assert w.ci_low <= n.ci_low <= n.ci_high <= w.ci_high and (w.ci_low, w.ci_high) != (n.ci_low, n.ci_high)


def test_dataframe_and_csv_hold_every_comparison():
    report = settings().compare(TABLES)
    frame = report.to_dataframe()
    assert len(frame) == 2 * 2  # two challengers x (primary + guard)
    assert set(frame["challenger"]) == {c.name for c in report.result.challengers}
    first = report.result.challengers[0].metrics[0]
    row = frame[(frame["challenger"] == report.result.challengers[0].name) & (frame["metric"] == first.spec.name)]
    assert row["p_value"].iloc[0] == first.p_value and row["ci_low"].iloc[0] == first.ci_low
    parsed = list(csv.DictReader(io.StringIO(report.to_csv())))
    assert [r["metric"] for r in parsed] == list(frame["metric"])
    assert float(parsed[0]["mean_difference"]) == pytest.approx(frame["mean_difference"].iloc[0], abs=0, rel=1e-15)
    assert parsed[0]["n"] == str(first.n)  # counts stay integers
    verdicts = list(csv.DictReader(io.StringIO(report.verdicts_csv)))
    assert {v["challenger"]: v["winner"] for v in verdicts} == {c.name: c.verdict.winner
                                                               for c in report.result.challengers}
    assert {(v["challenger"], v["metric"]): v["verdict"] for v in verdicts} == {
        (c.name, m.spec.name): m.verdict for c in report.result.challengers for m in c.metrics}
    assert {"verdict", "margin", "ci_level", "ci_low_uncorrected", "questions_needed"} <= set(parsed[0])


def test_csv_is_written_to_a_path(tmp_path):
    report = settings().compare(TABLES)
    text = report.to_csv(tmp_path / "stats.csv")
    assert (tmp_path / "stats.csv").read_text() == text
    assert text.splitlines()[0].startswith("challenger,metric,role")


def test_markdown_has_a_row_per_comparison_and_the_verdicts():
    report = settings().compare(TABLES)
    text = report.to_markdown()
    table_lines = [line for line in text.splitlines() if line.startswith("|")]
    assert len(table_lines) == 2 + 4  # header, rule, 4 comparisons
    for challenger in report.result.challengers:
        assert f"winner {challenger.verdict.winner} - {challenger.verdict.reason}" in text
        assert f"- **{challenger.name}**: {challenger.metrics[0].decision.reason} (margin 0.01)" in text
    assert report.champion in text.splitlines()[0]


def test_the_printed_table_labels_the_interval_with_its_level():
    from rich.console import Console

    from harness.tracking.verdicts.statistics import print_report

    console = Console(width=120, record=True)
    print_report(settings(alpha=0.1).compare(TABLES), console=console)
    text = console.export_text()
    assert "90% CI" in text and "95% CI" not in text
