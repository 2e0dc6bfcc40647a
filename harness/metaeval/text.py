"""The meta-evaluation report as printed: one rich table per dimension, then the ceiling."""

from __future__ import annotations

import io
import math


def render(report) -> str:
    """``report`` (a :class:`~harness.metaeval.report.MetaEvalReport`, which calls this: not imported
    here) as rich tables rendered to plain text."""
    from rich.console import Console
    from rich.table import Table

    console = Console(file=io.StringIO(), width=160, record=True)
    labels = report.labels
    runs = " vs ".join(f"{'AB'[i]} = {r.name}" for i, r in enumerate(report.runs)) if report.pairwise \
        else report.runs[0].name
    console.print(f"Meta-evaluation ({report.kind} labels, {labels.path}) of {runs}: {len(labels.items)} labels "
                  f"of {len(labels.question_ids)} questions by {len(labels.annotators)} annotator(s); "
                  f"{report.confidence:.0%} bootstrap CIs; sorted by {report.headline}.")
    level = "x 100, " if report.pairwise else ""
    rows = report.rows()
    for dimension in labels.dimensions:
        table = Table(title=f"{dimension}: agreement of each column with people ({level}[CI])")
        statistics = list(next((a.estimates for a in report.agreements if a.dimension == dimension), {}))
        ceiling = report.ceiling(dimension)
        for name in ("column", "n", *statistics):
            table.add_column(name, justify="left" if name == "column" else "right")
        if report.pairwise:
            table.add_column("sign agrees", justify="right")
            table.add_column("imputed", justify="right")
        if ceiling:
            table.add_column(f"{report.headline} / ceiling", justify="right")
        mine = [r for r in rows if r["dimension"] == dimension]
        constant = [str(r["column"]) for r in mine if all(math.isnan(r[s]) for s in statistics)]
        for row in (r for r in mine if str(r["column"]) not in constant):
            cells = [str(row["column"]), str(row["n"])]
            cells += [_estimate(row[s], row[f"{s}_ci_low"], row[f"{s}_ci_high"]) for s in statistics]
            if report.pairwise:
                cells += [f"{row['sign_agreement']:.0%} of {int(row['n_sign'])}", str(int(row["imputed"]))]
            if ceiling:
                cells.append(_number(row[f"{report.headline}_of_ceiling"], ".0%"))
            table.add_row(*cells)
        console.print(table)
        if constant:
            console.print(f"({len(constant)} column(s) constant on the labelled questions, no correlation: "
                          f"{', '.join(constant)})")
    if report.ceilings:
        table = Table(title="Human ceiling: agreement between annotators (mean over annotator pairs)")
        for name in ("dimension", "pairs", "pearson", "spearman", "kappa", "kappa (quadratic)"):
            table.add_column(name, justify="left" if name == "dimension" else "right")
        for c in report.ceilings:
            table.add_row(c.dimension, str(c.pairs), *(_number(v * f, ".3f") for v, f in (
                (c.pearson, report.factor), (c.spearman, report.factor), (c.kappa, 1), (c.kappa_quadratic, 1))))
        console.print(table)
    elif len(labels.annotators) < 2:
        console.print("One annotator: no inter-annotator ceiling (label with two or more people to get one).")
    return console.export_text()


def _number(value: float, spec: str) -> str:
    return "undefined" if value is None or math.isnan(value) else format(value, spec)


def _estimate(value: float, low: float, high: float) -> str:
    if math.isnan(value):
        return "undefined"
    ci = "" if math.isnan(low) else f" [{low:+.3f}, {high:+.3f}]"
    return f"{value:+.3f}{ci}"
