"""Combined scorers: a weighted mean of z-scored per-question columns of the same run.

Two weak scorers that err differently can agree with people better together than apart (e.g.
token-overlap faithfulness and the local judge's PMI faithfulness on QAGS, see docs/figures.md "Which
embedded scorer agrees with people"). A combination is declared in YAML, members and weights:

    combinations:
      overlap_pmi: {answer/faithfulness: 1.0, judge/pmi_faithfulness: 1.0}

and gives the per-question column ``combined/overlap_pmi`` = sum(w * z) / sum(|w|), where each
member's z = (x - mean) / std (population std) over the run's questions that have every member.
The values are relative to the run (mean 0): compare them within a run (``harness meta-eval``
correlations, rankings), never across runs. A question missing a member gets no value; a member
that is constant over the run carries no information and contributes z = 0.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from harness.metrics.suites import DerivedSuite, Scores


class CombinedSuite(DerivedSuite):
    """Weighted z-score means of other suites' columns (``combinations``: name -> {column: weight}).

    >>> suite = CombinedSuite({"both": {"a/x": 1.0, "b/y": 1.0}})
    >>> suite.derive([{"a/x": 0.0, "b/y": 2.0}, {"a/x": 1.0, "b/y": 0.0}, {"a/x": 2.0}])
    [{'both': 0.0}, {'both': 0.0}, {}]
    """

    def __init__(self, combinations: Mapping[str, Mapping[str, float]]) -> None:
        self.combinations: dict[str, dict[str, float]] = {}
        for name, members in dict(combinations or {}).items():
            where = f"metrics.combined.combinations.{name}"
            members = {str(column): float(weight) for column, weight in dict(members or {}).items()}
            if not members:
                raise ValueError(f"{where}: needs at least one member column with its weight")
            if not all("/" in column for column in members):
                raise ValueError(f"{where}: members are per-question columns named '<suite>/<column>', got {list(members)}")
            if not all(np.isfinite(w) and w != 0 for w in members.values()):
                raise ValueError(f"{where}: weights must be finite and non-zero, got {members}")
            self.combinations[str(name)] = members

    def derive(self, columns: list[dict[str, float]]) -> list[Scores]:
        rows: list[Scores] = [{} for _ in columns]
        for name, members in self.combinations.items():
            complete = [i for i, row in enumerate(columns)
                        if all(_finite(row.get(column)) for column in members)]
            if not complete:
                continue
            total = np.zeros(len(complete))
            for column, weight in members.items():
                values = np.array([float(columns[i][column]) for i in complete])
                spread = values.std()
                z = (values - values.mean()) / spread if spread > 0 else np.zeros_like(values)
                total += weight * z
            combined = total / sum(abs(w) for w in members.values())
            for index, value in zip(complete, combined):
                rows[index][name] = float(value)
        return rows

    def aggregate(self, rows: list[Scores]) -> Scores:
        # The mean of a z-score combination is 0 by construction: only how many questions had one.
        return {f"{name}_n": float(sum(name in row for row in rows)) for name in self.combinations}


def _finite(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and bool(np.isfinite(value))
