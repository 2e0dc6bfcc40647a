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
from typing import Any

from harness.console import short_names
from harness.results.front_plot import front_png
from harness.results.headline import headline
from harness.results.html_questions import drill_down, pick_questions
from harness.results.html_sections import (
    aggregate,
    judge_selfcheck,
    number,
    per_route,
    side_by_side,
    worst_answers,
    worst_rows,
)
from harness.results.html_table import SCRIPT, STYLE, Cell, cell, run_cell, table
from harness.results.numbers import column_decimals, fixed, with_ci
from harness.results.report_inputs import ReportInputs
from harness.stats.front import place, recorded_figure

__all__ = ["ReportInputs", "render_html"]


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
    worst_ids = [row["question_id"] for row in worst_rows(inputs)]
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
             Cell(place(run, short)), Cell(front["reasons"][run["name"]], long=True)]
            for i, run in enumerate(front["runs"])]
    return plot + table(["run", *(title for _, title in keys), "place", "why"], rows)


def leaderboard(inputs: ReportInputs, short: dict[str, str]) -> str:
    """Runs by their short names, metrics under their short labels, each number rounded to what
    its bootstrap interval over the run's questions supports."""
    figures = {m: [aggregate(metrics.get(m), inputs.tables.get(name, []), m, inputs)
                   for name, metrics in inputs.runs.items()] for m in inputs.headline}
    places = {m: column_decimals(values) for m, values in figures.items()}
    rows = [[run_cell(name, short), *(Cell(fixed(figures[m][i][0], places[m]), numeric=True) for m in inputs.headline)]
            for i, name in enumerate(inputs.runs)]
    return table(["run", *(inputs.labels.get(m, m) for m in inputs.headline)], rows)


def statistics(rows: list[dict[str, Any]], short: dict[str, str], alpha: float) -> str:
    """Each challenger against the champion: difference, interval (rounded to what it supports),
    effect size, p-values, winner, and why a test could not run where one could not."""
    level = f"{round(100 * (1 - alpha))}% CI"
    reasons = any(row.get("reason") for row in rows)
    body = []
    for row in rows:
        low, high = row.get("ci_low"), row.get("ci_high")
        interval = "-" if not number(low) else f"[{with_ci(low, low, high)}, {with_ci(high, low, high)}]"
        body.append([run_cell(row["challenger"], short), Cell(row["metric"]),
                     Cell(with_ci(row.get("mean_difference"), low, high), numeric=True), Cell(interval, numeric=True),
                     cell(row.get("cohens_d")), cell(row.get("p_value")), cell(row.get("p_corrected")),
                     Cell(f"{row.get('n')} ({row.get('missing')})", numeric=True), cell(row.get("winner")),
                     *([Cell(str(row.get("reason") or ""), long=True)] if reasons else [])])
    return table(["challenger", "metric", "mean diff", level, "d", "p", "p corr.", "n (missing)", "winner",
                  *(["not testable because"] if reasons else [])], body)




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
