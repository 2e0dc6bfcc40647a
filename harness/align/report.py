"""The alignment report: agreement table (held-out and in-sample), CSV, text, chart, metric config."""

from __future__ import annotations

import csv
import io
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import yaml

from harness.align.chart import write_scatter
from harness.align.design import Design
from harness.align.fit import Combination
from harness.align.settings import AlignSettings
from harness.human.table import RunTable
from harness.metaeval.ceiling import Ceiling
from harness.metaeval.correlation import STATISTICS, Estimate
from harness.metaeval.labels import Labels

ALIGNED, IN_SAMPLE, HELD_OUT = "aligned", "in_sample", "held_out"
CSV_NAME, TEXT_NAME, CHART_NAME = "align.csv", "align.txt", "align.png"


@dataclass(frozen=True)
class Agreement:
    """One model's (the combination's, or a single column's) agreement with people on one split."""

    column: str
    split: str
    n: int
    estimates: dict[str, Estimate]


@dataclass
class AlignReport:
    """Everything ``harness align`` computes (see :func:`harness.align.evaluate.align`)."""

    runs: list[RunTable]
    labels: Labels
    dimension: str
    design: Design
    combination: Combination
    agreements: list[Agreement]
    held_out: np.ndarray
    ceilings: list[Ceiling]
    confidence: float
    settings: AlignSettings

    @property
    def kind(self) -> str:
        return "pairwise" if self.design.pairwise else "absolute"

    def figure(self, column: str, split: str, statistic: str = "pearson") -> float:
        return next(a.estimates[statistic].value for a in self.agreements if a.column == column and a.split == split)

    def rows(self) -> list[dict[str, object]]:
        """``align.csv``: the combination first, then the columns by held-out Pearson, best first."""
        return agreement_rows(self.agreements, lambda a: a.column != ALIGNED)

    def csv_text(self) -> str:
        return csv_text(self.rows())

    def metrics(self) -> dict[str, float]:
        out = {f"align/{row['split']}/{s}/{row['column']}": float(row[s]) for row in self.rows() for s in STATISTICS}
        out.update({f"align/weight/{c}": w for c, w in self.combination.weights.items()})
        out.update({"align/alpha": self.combination.alpha, "align/rows": float(len(self.design.y)),
                    "align/questions": float(len(set(self.design.groups)))})
        return {k: v for k, v in out.items() if not math.isnan(v)}

    def text(self) -> str:
        """The report as printed: per model, held-out and in-sample figures with CIs."""
        level = f"{self.confidence:.0%}"
        lines = [f"harness align: {self.kind} labels, dimension '{self.dimension}', {len(self.design.y)} rows over "
                 f"{len(set(self.design.groups))} questions; {self.settings.outer_folds} outer grouped folds "
                 f"(held_out), penalty chosen by {self.settings.inner_folds} inner folds; {level} bootstrap CIs",
                 *table_lines(self.rows())]
        for c in self.ceilings:
            if c.dimension == self.dimension:
                lines.append(f"ceiling (annotator vs annotator, {c.pairs} pair(s)): pearson {c.pearson:.3f}, "
                             f"spearman {c.spearman:.3f}")
        gap = self.figure(ALIGNED, IN_SAMPLE) - self.figure(ALIGNED, HELD_OUT)
        lines.append(f"aligned: in-sample minus held-out Pearson {gap:+.3f}; penalty alpha {self.combination.alpha:g}")
        lines.append("weights (column units): " + ", ".join(f"{c} {w:+.4g}" for c, w in self.combination.weights.items())
                     + f"; intercept {self.combination.intercept:+.4g}")
        return "\n".join(lines) + "\n"

    def metric_config(self, name: str) -> str:
        """The fitted combination as an option of ``metrics/aligned``: later runs load it with
        ``--config-dir DIR +metrics/aligned=<name>`` and get the per-question column ``aligned/<name>``."""
        digest = self.labels.sha256
        held = {s: _round(self.figure(ALIGNED, HELD_OUT, s)) for s in STATISTICS}
        inside = {s: _round(self.figure(ALIGNED, IN_SAMPLE, s)) for s in STATISTICS}
        body = {"weights": self.combination.weights, "intercept": self.combination.intercept,
                "fill": self.combination.fill,
                "provenance": {"labels": str(self.labels.path), "labels_sha256": digest, "dimension": self.dimension,
                               "kind": self.kind, "runs": [str(r.path) for r in self.runs],
                               "rows": int(len(self.design.y)), "alpha": self.combination.alpha,
                               "held_out": held, "in_sample": inside}}
        header = (f"# @package metrics.aligned.models.{name}\n"
                  f"# Written by `harness align`: aligned/{name} = intercept + sum(weight x column), a missing\n"
                  f"# column taking its fill value. Load it in a run with: --config-dir <this config dir> "
                  f"+metrics/aligned={name}\n")
        return header + yaml.safe_dump(body, sort_keys=False)

    def write(self, folder: Path) -> list[Path]:
        """``align.csv``, ``align.txt`` and ``align.png`` (held-out predictions vs people) into ``folder``."""
        folder.mkdir(parents=True, exist_ok=True)
        paths = [folder / CSV_NAME, folder / TEXT_NAME]
        paths[0].write_text(self.csv_text(), encoding="utf-8")
        paths[1].write_text(self.text(), encoding="utf-8")
        paths.append(write_scatter(self.held_out, self.design.y, self.dimension, self.design.pairwise,
                                   self.figure(ALIGNED, HELD_OUT), folder / CHART_NAME))
        return paths


def agreement_rows(agreements: list[Agreement], first) -> list[dict[str, object]]:
    """Flat rows (``column``, ``split``, each statistic with its CI, ``n``): rows with ``first(a)``
    false come first, then by held-out Pearson, best first, in-sample before held-out."""
    held = {a.column: a.estimates["pearson"].value for a in agreements if a.split == HELD_OUT}

    def key(a: Agreement):
        value = held.get(a.column, math.nan)
        return first(a), math.isnan(value), -value if not math.isnan(value) else 0, a.column, a.split

    rows = []
    for a in sorted(agreements, key=key):
        row: dict[str, object] = {"column": a.column, "split": a.split}
        for s in STATISTICS:
            e = a.estimates[s]
            row.update({s: e.value, f"{s}_ci_low": e.low, f"{s}_ci_high": e.high})
        row["n"] = a.n
        rows.append(row)
    return rows


def csv_text(rows: list[dict[str, object]]) -> str:
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(rows[0]), lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return out.getvalue()


def table_lines(rows: list[dict[str, object]]) -> list[str]:
    """The printed table: a header and one line per row, each statistic with its CI."""
    lines = [f"{'column':44s} {'split':9s} {'pearson':>24s} {'spearman':>24s} {'kendall':>24s} {'n':>5s}"]
    for row in rows:
        cells = " ".join(f"{row[s]:>7.3f} [{row[f'{s}_ci_low']:>6.3f},{row[f'{s}_ci_high']:>6.3f}]" for s in STATISTICS)
        lines.append(f"{str(row['column'])[:44]:44s} {row['split']:9s} {cells} {row['n']:>5d}")
    return lines


def _round(value: float) -> float | None:
    return None if math.isnan(value) else round(float(value), 6)
