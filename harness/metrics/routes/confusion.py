"""The routing confusion matrix: expected routes (rows) x predicted routes (columns)."""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

NO_ROUTE = "(none)"


def confusion_matrix(expected: Sequence[str], predicted: Sequence[str | None], labels: Sequence[str]) -> pd.DataFrame:
    """Counts of (expected, predicted) pairs.

    Rows and columns list ``labels`` in order, then any other route seen (sorted), then
    ``(none)`` for questions that got no route, if any did.

    Example:
        >>> confusion_matrix(["a", "a", "b"], ["a", "b", None], ["a", "b"]).values.tolist()
        [[1, 1, 0], [0, 0, 1]]
    """
    if len(expected) != len(predicted):
        raise ValueError(f"{len(expected)} expected routes but {len(predicted)} predicted")
    shown = [NO_ROUTE if route is None else route for route in predicted]
    extra = sorted((set(expected) | set(shown)) - set(labels) - {NO_ROUTE})
    rows = [*labels, *(r for r in extra if r in set(expected))]
    columns = [*labels, *extra, *([NO_ROUTE] if NO_ROUTE in shown else [])]
    counts = pd.crosstab(pd.Series(list(expected), name="expected"), pd.Series(shown, name="predicted"))
    return counts.reindex(index=rows, columns=columns, fill_value=0).astype(int)
