"""The meta-evaluation report: a table sorted by agreement, CSV files, metrics and a chart."""

from __future__ import annotations

import csv
import io
import math
from dataclasses import dataclass
from pathlib import Path

from harness.human.table import RunTable
from harness.metaeval.ceiling import FIGURES, Ceiling
from harness.metaeval.chart import write_chart
from harness.metaeval.correlation import ColumnAgreement
from harness.metaeval.labels import Labels
from harness.metaeval.text import render

ABSOLUTE, PAIRWISE = "absolute", "pairwise"
CSV_NAME, CEILING_CSV_NAME, CHART_NAME, TEXT_NAME = "meta_eval.csv", "meta_eval_ceiling.csv", "meta_eval.png", \
    "meta_eval.txt"
EXTRAS = ("sign_agreement", "n_sign", "imputed")


@dataclass
class MetaEvalReport:
    """Everything ``harness meta-eval`` computes.

    Attributes:
        kind: ``absolute`` (one run) or ``pairwise`` (runs A and B).
        runs: the evaluated run(s), A first.
        labels: the human labels.
        agreements: one entry per dimension and column.
        ceilings: inter-annotator agreement per dimension (empty with one annotator).
        headline: the statistic that sorts the table, is charted and is read against the ceiling.
        confidence: the bootstrap intervals' level.
    """

    kind: str
    runs: list[RunTable]
    labels: Labels
    agreements: list[ColumnAgreement]
    ceilings: list[Ceiling]
    headline: str
    confidence: float

    @property
    def pairwise(self) -> bool:
        return self.kind == PAIRWISE

    @property
    def factor(self) -> float:
        """Pairwise figures are x 100; the ceiling (plain correlations) is put on the same scale."""
        return 100.0 if self.pairwise else 1.0

    def ceiling(self, dimension: str) -> Ceiling | None:
        return next((c for c in self.ceilings if c.dimension == dimension), None)

    def sorted(self) -> list[ColumnAgreement]:
        """Per dimension (in label order), the columns by headline statistic, best first; undefined last."""
        order = {d: i for i, d in enumerate(self.labels.dimensions)}

        def key(a: ColumnAgreement):
            value = a.estimates[self.headline].value
            return order[a.dimension], math.isnan(value), -value if not math.isnan(value) else 0.0, a.column

        return sorted(self.agreements, key=key)

    def fractions(self, agreement: ColumnAgreement) -> dict[str, float]:
        """The column's Pearson and Spearman as fractions of the human ceiling (NaN without one)."""
        ceiling = self.ceiling(agreement.dimension)
        return {s: ceiling.fraction(s, agreement.estimates[s].value, self.factor) if ceiling else math.nan
                for s in ("pearson", "spearman")}

    def rows(self) -> list[dict[str, object]]:
        """One flat row per dimension and column, sorted, as ``meta_eval.csv`` holds them."""
        rows = []
        for a in self.sorted():
            row: dict[str, object] = {"kind": self.kind, "dimension": a.dimension, "column": a.column, "n": a.n}
            for name, e in a.estimates.items():
                row.update({name: e.value, f"{name}_ci_low": e.low, f"{name}_ci_high": e.high})
            row.update({k: a.extras[k] for k in EXTRAS if k in a.extras})
            row.update({f"{s}_of_ceiling": v for s, v in self.fractions(a).items()})
            rows.append(row)
        return rows

    def metrics(self) -> dict[str, float]:
        """Flat metric names -> values for the tracker; undefined (NaN) values left out."""
        out: dict[str, float] = {"meta_eval/questions": len(self.labels.question_ids),
                                 "meta_eval/labels": len(self.labels.items),
                                 "meta_eval/annotators": len(self.labels.annotators)}
        for row in self.rows():
            prefix = f"meta_eval/{row['dimension']}"
            for key, value in row.items():
                if key not in ("kind", "dimension", "column"):
                    out[f"{prefix}/{key}/{row['column']}"] = value
        for c in self.ceilings:
            out.update({f"meta_eval/{c.dimension}/ceiling/{name}": getattr(c, name) for name in FIGURES})
        return {k: float(v) for k, v in out.items() if not math.isnan(float(v))}

    def csv_text(self) -> str:
        rows = self.rows()
        fields = list(dict.fromkeys(key for row in rows for key in row)) or ["kind", "dimension", "column", "n"]
        return _csv(rows, fields)

    def ceiling_csv_text(self) -> str:
        return _csv([{"dimension": c.dimension, "annotator_pairs": c.pairs, **{f: getattr(c, f) for f in FIGURES}}
                     for c in self.ceilings], ["dimension", "annotator_pairs", *FIGURES])

    def write(self, folder: Path) -> list[Path]:
        """Writes the CSV files, the text and the chart into ``folder``; returns the paths."""
        folder.mkdir(parents=True, exist_ok=True)
        paths = []
        for name, text in ((CSV_NAME, self.csv_text()), (CEILING_CSV_NAME, self.ceiling_csv_text()),
                           (TEXT_NAME, self.text())):
            paths.append(folder / name)
            paths[-1].write_text(text, encoding="utf-8")
        paths.append(write_chart(self, folder / CHART_NAME))
        return paths

    def text(self) -> str:
        """The report as printed (rich tables rendered to plain text)."""
        return render(self)


def _csv(rows: list[dict], fields: list[str]) -> str:
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=fields, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return out.getvalue()
