"""The meta-evaluation chart: the headline correlation of every column with its CI, one panel per
dimension, the human ceiling drawn as a vertical line."""

from __future__ import annotations

import math
from pathlib import Path


def write_chart(report, path: Path) -> Path:
    """Draws the chart of ``report`` (a :class:`~harness.metaeval.report.MetaEvalReport`, which calls
    this: not imported here) into ``path`` (PNG) and returns it."""
    import matplotlib

    matplotlib.use("Agg")  # files only: no display on servers and CI
    import matplotlib.pyplot as plt

    dimensions = report.labels.dimensions
    rows = report.rows()
    counts = [sum(1 for r in rows if r["dimension"] == d) for d in dimensions]
    figure, axes = plt.subplots(len(dimensions), 1, squeeze=False,
                                figsize=(8, sum(max(c, 1) * 0.35 + 1.2 for c in counts)))
    stat = report.headline
    unit = " x 100" if report.factor != 1 else ""
    for axis, dimension in zip(axes[:, 0], dimensions):
        shown = [r for r in rows if r["dimension"] == dimension and not math.isnan(r[stat])][::-1]
        values = [r[stat] for r in shown]
        errors = [[0 if math.isnan(r[f"{stat}_ci_low"]) else r[stat] - r[f"{stat}_ci_low"] for r in shown],
                  [0 if math.isnan(r[f"{stat}_ci_high"]) else r[f"{stat}_ci_high"] - r[stat] for r in shown]]
        axis.barh(range(len(shown)), values, xerr=errors, color="tab:blue", ecolor="black", capsize=3)
        axis.set_yticks(range(len(shown)), [r["column"] for r in shown], fontsize=8)
        axis.axvline(0, color="grey", linewidth=0.8)
        ceiling = report.ceiling(dimension)
        level = getattr(ceiling, stat, math.nan) * report.factor if ceiling else math.nan
        if not math.isnan(level):
            axis.axvline(level, color="tab:red", linestyle="--", label=f"human ceiling {level:.3f}")
            axis.legend(loc="lower right", fontsize=8)
        axis.set_title(f"{dimension}: {stat}{unit} with {report.confidence:.0%} bootstrap CI", fontsize=10)
    figure.tight_layout()
    figure.savefig(path, dpi=100)
    plt.close(figure)
    return path
