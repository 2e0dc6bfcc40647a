"""Sets chosen afterwards from a pool of scored candidates (:meth:`Synthesizer.pool`): what a set
would have been with any combination of the filters, without writing it again."""

from __future__ import annotations

import numpy as np

from harness.synth.duplicates import DuplicatesFilter
from harness.synth.records import Scored


def select(pool: list[Scored], filters: list[str], n: int, duplicates: DuplicatesFilter | None = None,
           vectors: np.ndarray | None = None) -> list[Scored]:
    """The first ``n`` candidates of ``pool`` (in its order) that every filter named in ``filters``
    passed; with ``duplicates`` (and ``vectors``, one row per pool candidate), also none too close
    to one chosen before it, as :meth:`Synthesizer.run` would have kept them."""
    chosen, kept = [], None
    for index, scored in enumerate(pool):
        if len(chosen) >= n:
            break
        if not scored.passed(filters):
            continue
        if duplicates is not None:
            [score], kept = duplicates.screen(vectors[index:index + 1], kept)
            if not score["passed"]:
                continue
        chosen.append(scored)
    return chosen
