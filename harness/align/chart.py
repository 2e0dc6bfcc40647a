"""The alignment chart: the combination's held-out predictions against the human labels."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from harness.align.report import AlignReport


def write_scatter(report: AlignReport, path: Path) -> Path:
    """Draws held-out predicted vs human (one point per labelled row) into ``path`` (PNG)."""
    import matplotlib

    matplotlib.use("Agg")  # files only: no display on servers and CI
    import matplotlib.pyplot as plt

    from harness.align.report import ALIGNED, HELD_OUT

    figure, axis = plt.subplots(figsize=(5.5, 5))
    axis.scatter(report.held_out, report.design.y, s=12, alpha=0.6)
    pearson = report.figure(ALIGNED, HELD_OUT)
    axis.set_xlabel("aligned combination, predicted on held-out folds")
    axis.set_ylabel(f"human: {report.dimension}" + (" (preference B over A)" if report.design.pairwise else ""))
    axis.set_title(f"held-out Pearson {pearson:.3f} over {len(report.design.y)} rows", fontsize=10)
    figure.tight_layout()
    figure.savefig(path, dpi=100)
    plt.close(figure)
    return path
