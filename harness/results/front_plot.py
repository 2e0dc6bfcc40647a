"""Quality against each cost or latency axis of the front, with intervals, the front drawn as a line."""

from __future__ import annotations

import io
import textwrap
from typing import Any

# At most this many axes get a panel (cost and the two latencies of an answering sweep).
PANELS = 3


def front_png(front: dict[str, Any], short: dict[str, str], primary_label: str) -> bytes | None:
    """The plot as PNG bytes: one panel per axis (up to ``PANELS``), every run a point with its
    intervals on both axes, the front's members filled and joined, the dominated hollow (the
    page's caption says so); None when the front has no axis to plot against."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    axes = [axis for axis in front["axes"]
            if any(run["axes"][axis["name"]]["value"] is not None for run in front["runs"])][:PANELS]
    if not axes:
        return None
    figure, panels = plt.subplots(1, len(axes), figsize=(4.6 * len(axes), 3.6), squeeze=False, layout="constrained")
    for panel, axis in zip(panels[0], axes):
        points = []
        for run in front["runs"]:
            x, y = run["axes"][axis["name"]], run["quality"]
            if x["value"] is None or y["value"] is None:
                continue
            member = run["front"]
            panel.errorbar(x["value"], y["value"], xerr=_error(x), yerr=_error(y), fmt="o", capsize=2,
                           color="C0" if member else "grey", markerfacecolor="C0" if member else "white",
                           linewidth=0.8, markersize=5)
            panel.annotate(textwrap.shorten(short.get(run["name"], run["name"]), 28, placeholder="..."),
                           (x["value"], y["value"]), fontsize=6, xytext=(3, 3), textcoords="offset points")
            if member:
                points.append((x["value"], y["value"]))
        if len(points) > 1:
            xs, ys = zip(*sorted(points))
            panel.plot(xs, ys, color="C0", linewidth=1, alpha=0.6)
        panel.set_xlabel(f"{axis['name']} ({axis['unit']})" if axis["unit"] else axis["name"], fontsize=8)
        panel.set_ylabel(primary_label, fontsize=8)
        panel.tick_params(labelsize=7)
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=110)
    plt.close(figure)
    return buffer.getvalue()


def _error(figure: dict[str, Any]) -> list[list[float]] | None:
    if figure["low"] is None or figure["high"] is None:
        return None
    return [[max(0.0, figure["value"] - figure["low"])], [max(0.0, figure["high"] - figure["value"])]]
