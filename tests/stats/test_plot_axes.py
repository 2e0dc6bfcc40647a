"""The statistics plot stays readable at any number of runs: a few slanted x ticks, rows close."""

from __future__ import annotations

import pytest

from tests.stats.test_report import settings, table


@pytest.mark.parametrize("runs", [3, 30])
def test_ci_plot_axes_are_readable_at_any_number_of_runs(runs):
    report = settings().compare({f"chunker=c{i},retriever=bm25": table(0.01 * i, i) for i in range(runs)})
    fig = report.figure()
    fig.canvas.draw()
    for axis in fig.axes:
        ticks = [t for t in axis.get_xticklabels() if t.get_text()]
        assert 2 <= len(ticks) <= 6 and all(t.get_rotation() == 30 for t in ticks)
        assert [t.get_text() for t in axis.get_yticklabels()][0] == "c0"  # short names: what differs
    assert fig.get_size_inches()[1] == pytest.approx(0.28 * (runs - 1) + 1.8)
