"""The alignment chart: the combination's held-out predictions against the human labels."""

from __future__ import annotations

from pathlib import Path

import numpy as np


def write_scatter(predicted: np.ndarray, human: np.ndarray, dimension: str, pairwise: bool, pearson: float,
                  path: Path) -> Path:
    """Draws held-out predicted vs human (one point per labelled row) into ``path`` (PNG).

    Args:
        predicted: the combination's held-out predictions.
        human: the human labels, row for row.
        dimension: the labelled dimension (the y-axis label).
        pairwise: labels are preferences of B over A.
        pearson: the held-out Pearson correlation (the title).
        path: the PNG to write.
    """
    import matplotlib

    matplotlib.use("Agg")  # files only: no display on servers and CI
    import matplotlib.pyplot as plt

    figure, axis = plt.subplots(figsize=(5.5, 5))
    axis.scatter(predicted, human, s=12, alpha=0.6)
    axis.set_xlabel("aligned combination, predicted on held-out folds")
    axis.set_ylabel(f"human: {dimension}" + (" (preference B over A)" if pairwise else ""))
    axis.set_title(f"held-out Pearson {pearson:.3f} over {len(human)} rows", fontsize=10)
    figure.tight_layout()
    figure.savefig(path, dpi=100)
    plt.close(figure)
    return path
