"""What the HTML report is made from (:mod:`harness.results.html_report`), found by :mod:`harness.cli.report`."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class ReportInputs:
    """Args:
        title: the page's heading (the sweep or run).
        runs: run name -> aggregate metrics, in leaderboard order.
        tables: run name -> per-question rows.
        headline: metric columns of the leaderboard.
        stats_csv: the sweep's statistics table (stats.csv), if computed.
        stats_png: the statistics plot's PNG bytes, if drawn.
        worst: how many worst answers to list.
        notes: lines shown under the title (a race's eliminations).
        labels: metric -> short column label. legend: one line per label: metric, unit, range.
        champion: the sweep's champion (None: no statistics).
        front: the sweep's front (``front.json``), if computed.
        alpha, resamples, seed: the bootstrap that rounds each figure to what its interval supports.
        questions: how many questions the drill-down holds (the worst answers' always among them).
    """

    title: str
    runs: dict[str, dict[str, float]]
    tables: dict[str, list[dict[str, Any]]]
    headline: list[str]
    stats_csv: str | None = None
    stats_png: bytes | None = None
    worst: int = 10
    notes: list[str] = field(default_factory=list)
    labels: dict[str, str] = field(default_factory=dict)
    legend: list[str] = field(default_factory=list)
    champion: str | None = None
    front: dict[str, Any] | None = None
    alpha: float = 0.05
    resamples: int = 1000
    seed: int = 0
    questions: int = 100
