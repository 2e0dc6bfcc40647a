"""One self-contained HTML file for a run or sweep that leads with the answer: which configuration
to ship, then the tables behind it, each run under one short name throughout.

Pure rendering: :class:`ReportInputs` holds what was found (by :mod:`harness.cli.report`), and
:func:`render_html` turns it into a page with no external file, script or stylesheet.
"""

from __future__ import annotations

import base64
import csv
import html
import io
import math
from dataclasses import dataclass, field
from typing import Any

from harness.console import short_names
from harness.results.front_plot import front_png
from harness.results.headline import headline
from harness.results.html_questions import drill_down, pick_questions
from harness.results.html_table import SCRIPT, STYLE, Cell, cell, run_cell, table
from harness.results.numbers import column_decimals, fixed, with_ci
from harness.stats.front import recorded_figure


@dataclass
class ReportInputs:
    """Args:
        title: the page's heading (the sweep or run).
        runs: run name -> aggregate metrics, in leaderboard order.
        tables: run name -> per-question rows.
        headline: metric columns of the leaderboard.
        stats_csv: the sweep's statistics table (stats.csv), if computed.
        stats_png: the statistics plot's PNG bytes, if drawn.
        worst: how many worst answers to list.
        notes: lines shown under the title (a race's eliminations).
        labels: metric -> short column label. legend: one line per label: metric, unit, range.
        champion: the sweep's champion (None: no statistics).
        front: the sweep's front (``front.json``), if computed.
        alpha, resamples, seed: the bootstrap that rounds each figure to what its interval supports.
        questions: how many questions the drill-down holds (the worst answers' always among them).
    """

    title: str
    runs: dict[str, dict[str, float]]
    tables: dict[str, list[dict[str, Any]]]
    headline: list[str]
    stats_csv: str | None = None
    stats_png: bytes | None = None
    worst: int = 10
    notes: list[str] = field(default_factory=list)
    labels: dict[str, str] = field(default_factory=dict)
    legend: list[str] = field(default_factory=list)
    champion: str | None = None
    front: dict[str, Any] | None = None
    alpha: float = 0.05
    resamples: int = 1000
    seed: int = 0
    questions: int = 100


def render_html(inputs: ReportInputs) -> str:
    short = run_names(inputs)
    stats_rows = _csv_rows(inputs.stats_csv)
    primary = (inputs.front or {}).get("primary", {}).get("name") or next(
        (row["metric"] for row in stats_rows if row.get("role") == "primary"), None)
    label = inputs.labels.get(primary, primary or "")
    sections = [f"<h1>{html.escape(inputs.title)}</h1>",
                headline(inputs.champion, stats_rows, inputs.front, short, label, inputs.alpha)]
    sections += [f"<p>{html.escape(note)}</p>" for note in inputs.notes]
    if inputs.front is not None:
        sections.append(_section("Ship candidates", ship_candidates(inputs.front, short, label)))
    legend = "".join(f"{html.escape(line)}<br>" for line in inputs.legend)
    sections.append(_section("Leaderboard", leaderboard(inputs, short) + f'<p class="legend">{legend}</p>'))
    if len(inputs.runs) > 1:
        sections.append(_section("Runs", table(["run", "configuration (overrides)"],
                                               [[run_cell(n, short), Cell(n)] for n in inputs.runs])))
    if stats_rows:
        plot = (f'<img alt="statistics plot" src="data:image/png;base64,{base64.b64encode(inputs.stats_png).decode()}">'
                if inputs.stats_png else "")
        sections.append(_section("Statistics", statistics(stats_rows, short, inputs.alpha) + plot))
    for title, body in (("Per route", per_route(inputs, short)), ("Judge self-check", judge_selfcheck(inputs, short)),
                        ("Worst answers", worst_answers(inputs, short))):
        if body is not None:
            sections.append(_section(title, body))
    side = side_by_side(inputs, short)
    if side is not None:
        first, second = list(inputs.runs)[:2]
        sections.append(f"<h2 id=\"side-by-side\">Side by side: {run_cell(first, short).render('span')} vs "
                        f"{run_cell(second, short).render('span')}</h2>{side}")
    worst_ids = [row["question_id"] for row in _worst_rows(inputs)]
    questions = drill_down(inputs.tables, short, inputs.headline, inputs.labels,
                           pick_questions(inputs.tables, worst_ids, inputs.questions))
    if questions:
        sections.append(_section("Questions", '<p class="legend">A click on a question shows it across runs.</p>'
                                 + questions))
    return (f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{html.escape(inputs.title)}</title>"
            f"<style>{STYLE}</style></head><body>{''.join(sections)}<script>{SCRIPT}</script></body></html>\n")


def run_names(inputs: ReportInputs) -> dict[str, str]:
    """Every run's one short name (what differs between the runs), used in every section."""
    short, _, _ = short_names(list(inputs.runs))
    return short


def ship_candidates(front: dict[str, Any], short: dict[str, str], label: str) -> str:
    """The front's plot and a row per run: quality, each axis, and its place with the reason."""
    png = front_png(front, short, label)
    level = round(100 * (1 - front["settings"]["alpha"]))
    plot = (f'<img alt="quality against cost and latency" src="data:image/png;base64,{base64.b64encode(png).decode()}">'
            f'<p class="legend">{html.escape(label)} against each cost and latency axis, {level}% bootstrap intervals '
            "over the questions; filled and joined: the front (what to ship); hollow: dominated.</p>") if png else ""
    keys = [("quality", label), *((axis["name"], f"{axis['name']} ({axis['unit']})" if axis["unit"] else axis["name"])
                                  for axis in front["axes"])]
    figures = {key: [recorded_figure(run, key) for run in front["runs"]] for key, _ in keys}
    places = {key: column_decimals(values) for key, values in figures.items()}
    rows = [[run_cell(run["name"], short),
             *(Cell(fixed(figures[key][i][0], places[key]), numeric=True) for key, _ in keys),
             Cell("front" if run["front"] else "dominated"), Cell(front["reasons"][run["name"]], long=True)]
            for i, run in enumerate(front["runs"])]
    return plot + table(["run", *(title for _, title in keys), "place", "why"], rows)


def leaderboard(inputs: ReportInputs, short: dict[str, str]) -> str:
    """Runs by their short names, metrics under their short labels, each number rounded to what
    its bootstrap interval over the run's questions supports."""
    figures = {m: [_aggregate(metrics.get(m), inputs.tables.get(name, []), m, inputs)
                   for name, metrics in inputs.runs.items()] for m in inputs.headline}
    places = {m: column_decimals(values) for m, values in figures.items()}
    rows = [[run_cell(name, short), *(Cell(fixed(figures[m][i][0], places[m]), numeric=True) for m in inputs.headline)]
            for i, name in enumerate(inputs.runs)]
    return table(["run", *(inputs.labels.get(m, m) for m in inputs.headline)], rows)


def statistics(rows: list[dict[str, Any]], short: dict[str, str], alpha: float) -> str:
    """Each challenger against the champion: difference, interval (rounded to what it supports),
    effect size, p-values, winner and reason."""
    level = f"{round(100 * (1 - alpha))}% CI"
    body = []
    for row in rows:
        low, high = row.get("ci_low"), row.get("ci_high")
        interval = "-" if not _number(low) else f"[{with_ci(low, low, high)}, {with_ci(high, low, high)}]"
        body.append([run_cell(row["challenger"], short), Cell(row["metric"]),
                     Cell(with_ci(row.get("mean_difference"), low, high), numeric=True), Cell(interval, numeric=True),
                     cell(row.get("cohens_d")), cell(row.get("p_value")), cell(row.get("p_corrected")),
                     Cell(f"{row.get('n')} ({row.get('missing')})", numeric=True), cell(row.get("winner")),
                     Cell(str(row.get("reason") or ""), long=True)])
    return table(["challenger", "metric", "mean diff", level, "d", "p", "p corr.", "n (missing)", "winner", "reason"],
                 body)


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
    ranked = _worst_rows(inputs)
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


def _worst_rows(inputs: ReportInputs) -> list[dict[str, Any]]:
    key = _worst_key(inputs)
    if key is None:
        return []
    rows = [r for r in inputs.tables.get(next(iter(inputs.runs)), []) if r.get("answer") is not None]
    return sorted((r for r in rows if r.get(key) is not None), key=lambda r: r[key])[:inputs.worst]


def _aggregate(value: Any, rows: list[dict[str, Any]], metric: str, inputs: ReportInputs):
    """(value, low, high): the run's figure and, when it is the mean of its per-question values,
    their bootstrap interval."""
    if not _number(value):
        return None, None, None
    found = _mean(rows, metric, inputs)
    if found[0] is not None and math.isclose(found[0], value, rel_tol=1e-9, abs_tol=1e-12):
        return found
    return float(value), None, None


def _mean(rows: list[dict[str, Any]], metric: str, inputs: ReportInputs):
    from harness.stats.effect import bootstrap_ci

    values = [float(row[metric]) for row in rows if _number(row.get(metric))]
    if not values:
        return None, None, None
    low, high = bootstrap_ci(values, inputs.resamples, inputs.alpha, inputs.seed)
    return sum(values) / len(values), low, high


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _csv_rows(text: str | None) -> list[dict[str, Any]]:
    """The rows of a CSV with numbers as numbers (empty cells as None)."""
    if not text:
        return []
    return [{key: _parse(value) for key, value in row.items()} for row in csv.DictReader(io.StringIO(text))]


def _parse(value: str) -> Any:
    if value == "":
        return None
    try:
        return int(value)
    except ValueError:
        try:
            return float(value)
        except ValueError:
            return value


def _section(title: str, body: str) -> str:
    anchor = "".join(c if c.isalnum() else "-" for c in title.lower())
    return f'<h2 id="{anchor}">{html.escape(title)}</h2>{body}'
