"""One self-contained HTML file for a run or sweep: tables as HTML, the statistics plot inline.

Pure rendering: :class:`ReportInputs` holds what was found (by :mod:`harness.cli.report`), and
:func:`render_html` turns it into a page with no external file, script or stylesheet.
"""

from __future__ import annotations

import base64
import html
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from harness.console import short_names

_STYLE = """body{font-family:sans-serif;margin:2em;max-width:110em}table{border-collapse:collapse;margin:0}
td,th{border:1px solid #ccc;padding:3px 6px;font-size:13px;vertical-align:top}th{background:#eee;cursor:pointer}
th[aria-sort=ascending]::after{content:" ^"}th[aria-sort=descending]::after{content:" v"}
.scroll{overflow-x:auto;max-width:100%;margin:1em 0}.legend{font-size:12px;color:#444;margin:0 0 1em}
h2{border-bottom:1px solid #999}img{max-width:100%}"""

# Click a column header to sort its table (numbers as numbers, text after them); a second click reverses.
_SORT_SCRIPT = """document.querySelectorAll("table").forEach(function(table){
table.querySelectorAll("thead th").forEach(function(th,col){th.addEventListener("click",function(){
var body=table.tBodies[0],rows=Array.from(body.rows),up=th.getAttribute("aria-sort")!=="ascending";
table.querySelectorAll("thead th").forEach(function(o){o.removeAttribute("aria-sort");});
th.setAttribute("aria-sort",up?"ascending":"descending");
function key(r){var t=r.cells[col]?r.cells[col].textContent.trim():"";var n=parseFloat(t);
return isNaN(n)||!/^[-+]?[0-9.]/.test(t)?[1,t]:[0,n];}
rows.sort(function(a,b){var x=key(a),y=key(b);if(x[0]!==y[0])return x[0]-y[0];
var c=x[0]?String(x[1]).localeCompare(String(y[1])):x[1]-y[1];return up?c:-c;});
rows.forEach(function(r){body.appendChild(r);});});});});"""


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
    """

    title: str
    runs: dict[str, dict[str, float]]
    tables: dict[str, list[dict[str, Any]]]
    headline: list[str]
    stats_csv: str | None = None
    stats_png: bytes | None = None
    worst: int = 10
    notes: list[str] = field(default_factory=list)
    labels: dict[str, str] = field(default_factory=dict)  # metric -> short column label
    legend: list[str] = field(default_factory=list)  # one line per label: metric, unit, range


def render_html(inputs: ReportInputs) -> str:
    sections = [f"<h1>{html.escape(inputs.title)}</h1>"]
    sections += [f"<p>{html.escape(note)}</p>" for note in inputs.notes]
    legend = "".join(f"{html.escape(line)}<br>" for line in inputs.legend)
    sections.append(_section("Leaderboard", _frame(leaderboard(inputs)) + f'<p class="legend">{legend}</p>'))
    if inputs.stats_csv:
        from io import StringIO

        stats = _frame(pd.read_csv(StringIO(inputs.stats_csv)))
        plot = (f'<img alt="statistics plot" src="data:image/png;base64,{base64.b64encode(inputs.stats_png).decode()}">'
                if inputs.stats_png else "")
        sections.append(_section("Statistics", stats + plot))
    routes = per_route(inputs)
    if routes is not None:
        sections.append(_section("Per route", _frame(routes)))
    selfcheck = judge_selfcheck(inputs)
    if selfcheck is not None:
        sections.append(_section("Judge self-check", _frame(selfcheck)))
    worst = worst_answers(inputs)
    if worst is not None:
        sections.append(_section("Worst answers", _frame(worst)))
    side = side_by_side(inputs)
    if side is not None:
        first, second = list(inputs.runs)[:2]
        sections.append(_section(f"Side by side: {first} vs {second}", _frame(side)))
    return (f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{html.escape(inputs.title)}</title>"
            f"<style>{_STYLE}</style></head><body>{''.join(sections)}<script>{_SORT_SCRIPT}</script>"
            "</body></html>\n")


def leaderboard(inputs: ReportInputs) -> pd.DataFrame:
    """Runs by their short names (what differs between them), metrics under their short labels."""
    short, _, _ = short_names(list(inputs.runs))
    return pd.DataFrame([{"run": short.get(name, name), **{inputs.labels.get(m, m): metrics.get(m)
                                                           for m in inputs.headline}}
                         for name, metrics in inputs.runs.items()])


def per_route(inputs: ReportInputs) -> pd.DataFrame | None:
    """Mean of each headline metric per run and route, when the questions carry routes."""
    rows = [{"run": name, **row} for name, table in inputs.tables.items() for row in table if row.get("route")]
    if not rows:
        return None
    frame = pd.DataFrame(rows)
    columns = [m for m in inputs.headline if m in frame]
    if not columns:
        return None
    grouped = frame.groupby(["run", "route"], sort=False)
    table = grouped[columns].mean().join(grouped.size().rename("questions")).reset_index()
    short, _, _ = short_names(list(inputs.runs))
    table["run"] = table["run"].map(lambda name: short.get(name, name))
    return table.rename(columns=inputs.labels)


def judge_selfcheck(inputs: ReportInputs) -> pd.DataFrame | None:
    """The judge self-check figures each run logged (``judge/selfcheck*`` metrics), if any."""
    rows = [{"run": name, **{k: v for k, v in metrics.items() if k.startswith("judge/selfcheck")}}
            for name, metrics in inputs.runs.items()]
    rows = [row for row in rows if len(row) > 1]
    return pd.DataFrame(rows) if rows else None


def worst_answers(inputs: ReportInputs) -> pd.DataFrame | None:
    """The lowest-scored answers of the first run (by ``answer/badness``, else ``answer/f1``)."""
    if not inputs.runs:
        return None
    best = list(inputs.runs)[0]
    rows = [r for r in inputs.tables.get(best, []) if r.get("answer") is not None]
    key = next((k for k in ("answer/badness", "answer/f1") if any(r.get(k) is not None for r in rows)), None)
    if key is None:
        return None
    ranked = sorted((r for r in rows if r.get(key) is not None), key=lambda r: r[key])[:inputs.worst]
    return pd.DataFrame([{"question_id": r["question_id"], "question": r.get("question"),
                          "gold": " | ".join(r.get("gold_answers") or []), "answer": r["answer"], key: r[key]}
                         for r in ranked])


def side_by_side(inputs: ReportInputs) -> pd.DataFrame | None:
    """The first two runs' answers per question, with their F1."""
    names = list(inputs.runs)[:2]
    if len(names) < 2:
        return None
    a, b = ({r["question_id"]: r for r in inputs.tables.get(n, [])} for n in names)
    shared = [qid for qid in a if qid in b and (a[qid].get("answer") is not None or b[qid].get("answer") is not None)]
    if not shared:
        return None
    return pd.DataFrame([{"question_id": qid, "question": a[qid].get("question"),
                          "gold": " | ".join(a[qid].get("gold_answers") or []),
                          f"answer: {names[0]}": a[qid].get("answer"), f"f1: {names[0]}": a[qid].get("answer/f1"),
                          f"answer: {names[1]}": b[qid].get("answer"), f"f1: {names[1]}": b[qid].get("answer/f1")}
                         for qid in shared])


def _frame(frame: pd.DataFrame) -> str:
    """The table inside its own horizontally scrolling box: a wide table never widens the page."""
    table = frame.to_html(index=False, escape=True, na_rep="-", float_format=lambda v: f"{v:.4f}")
    return f'<div class="scroll">{table}</div>'


def _section(title: str, body: str) -> str:
    return f"<h2>{html.escape(title)}</h2>{body}"
