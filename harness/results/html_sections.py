"""The report's sections behind its opening: per route, judge self-check, worst answers, side by side;
and the bootstrap interval that rounds a mean to what it supports."""

from __future__ import annotations

import html
import math
from typing import Any

from harness.results.html_table import Cell, cell, run_cell, table
from harness.results.numbers import column_decimals, fixed
from harness.results.report_inputs import ReportInputs


def per_route(inputs: ReportInputs, short: dict[str, str]) -> str | None:
    """Mean of each headline metric per run and route, when the questions carry routes."""
    groups: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for name in inputs.runs:
        for row in inputs.tables.get(name, []):
            if row.get("route"):
                groups.setdefault((name, row["route"]), []).append(row)
    columns = [m for m in inputs.headline if any(row.get(m) is not None for rows in groups.values() for row in rows)]
    if not groups or not columns:
        return None
    figures = {m: [_mean(rows, m, inputs) for rows in groups.values()] for m in columns}
    places = {m: column_decimals(values) for m, values in figures.items()}
    body = [[run_cell(name, short), Cell(route), Cell(str(len(rows)), numeric=True),
             *(Cell(fixed(figures[m][i][0], places[m]), numeric=True) for m in columns)]
            for i, ((name, route), rows) in enumerate(groups.items())]
    return table(["run", "route", "questions", *(inputs.labels.get(m, m) for m in columns)], body)


def judge_selfcheck(inputs: ReportInputs, short: dict[str, str]) -> str | None:
    """The judge self-check figures each run logged (``judge/selfcheck*`` metrics), if any."""
    keys = sorted({k for metrics in inputs.runs.values() for k in metrics if k.startswith("judge/selfcheck")})
    if not keys:
        return None
    rows = [[run_cell(name, short), *(cell(metrics.get(k)) for k in keys)] for name, metrics in inputs.runs.items()
            if any(k in metrics for k in keys)]
    return table(["run", *keys], rows)


def worst_answers(inputs: ReportInputs, short: dict[str, str]) -> str | None:
    """The lowest-scored answers of the first run (by ``answer/badness``, else ``answer/f1``)."""
    ranked = worst_rows(inputs)
    if not ranked:
        return None
    key = _worst_key(inputs)
    best = list(inputs.runs)[0]
    return (f"<p>Of {run_cell(best, short).render('span')}, by {html.escape(key)}:</p>"
            + table(["question", "gold", "answer", key],
                    [[Cell(f"{r['question_id']}: {r.get('question', '')}", question=r["question_id"], long=True),
                      Cell(" | ".join(r.get("gold_answers") or []), long=True), Cell(str(r["answer"]), long=True),
                      cell(r[key])] for r in ranked]))


def side_by_side(inputs: ReportInputs, short: dict[str, str]) -> str | None:
    """The first two runs' answers per question, with their F1."""
    names = list(inputs.runs)[:2]
    if len(names) < 2:
        return None
    a, b = ({r["question_id"]: r for r in inputs.tables.get(n, [])} for n in names)
    shared = [qid for qid in a if qid in b and (a[qid].get("answer") is not None or b[qid].get("answer") is not None)]
    if not shared:
        return None
    headers = ["question", "gold",
               *(Cell(f"{part}: {short.get(n, n)}", run=n) for n in names for part in ("answer", "f1"))]
    return table(headers, [[Cell(f"{q}: {a[q].get('question', '')}", question=q, long=True),
                            Cell(" | ".join(a[q].get("gold_answers") or []), long=True),
                            *(value for side in (a[q], b[q]) for value in
                              (Cell(str(side.get("answer") or "-"), long=True), cell(side.get("answer/f1"))))]
                           for q in shared])


def _worst_key(inputs: ReportInputs) -> str | None:
    rows = [r for r in inputs.tables.get(next(iter(inputs.runs), ""), []) if r.get("answer") is not None]
    return next((k for k in ("answer/badness", "answer/f1") if any(r.get(k) is not None for r in rows)), None)


def worst_rows(inputs: ReportInputs) -> list[dict[str, Any]]:
    key = _worst_key(inputs)
    if key is None:
        return []
    rows = [r for r in inputs.tables.get(next(iter(inputs.runs)), []) if r.get("answer") is not None]
    return sorted((r for r in rows if r.get(key) is not None), key=lambda r: r[key])[:inputs.worst]


def aggregate(value: Any, rows: list[dict[str, Any]], metric: str, inputs: ReportInputs):
    """(value, low, high): the run's figure and, when it is the mean of its per-question values,
    their bootstrap interval."""
    if not number(value):
        return None, None, None
    found = _mean(rows, metric, inputs)
    if found[0] is not None and math.isclose(found[0], value, rel_tol=1e-9, abs_tol=1e-12):
        return found
    return float(value), None, None


def _mean(rows: list[dict[str, Any]], metric: str, inputs: ReportInputs):
    from harness.stats.effect import bootstrap_ci

    values = [float(row[metric]) for row in rows if number(row.get(metric))]
    if not values:
        return None, None, None
    low, high = bootstrap_ci(values, inputs.resamples, inputs.alpha, inputs.seed)
    return sum(values) / len(values), low, high


def number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
