"""HTML tables of the report: each in its own scrolling box with a sticky first column, runs named
one way everywhere (the short name shown, the full one on hover), text kept as text.

Example:
    >>> print(table(["run", "f1"], [[Cell("bm25", run="retriever=bm25"), Cell("0.5", numeric=True)]]))
    <div class="scroll"><table><thead><tr><th>run</th><th>f1</th></tr></thead><tbody><tr><td data-run="retriever=bm25" title="retriever=bm25">bm25</td><td class="num">0.5</td></tr></tbody></table></div>
"""

from __future__ import annotations

import html
from dataclasses import dataclass
from typing import Any

STYLE = """body{font-family:sans-serif;margin:2em;max-width:110em}table{border-collapse:separate;border-spacing:0;margin:0}
td,th{border:1px solid #ccc;padding:3px 6px;font-size:13px;vertical-align:top;background:#fff}
th{background:#eee;cursor:pointer}th[aria-sort=ascending]::after{content:" ^"}th[aria-sort=descending]::after{content:" v"}
.scroll{overflow-x:auto;max-width:100%;margin:1em 0}.scroll tr>:first-child{position:sticky;left:0;z-index:1;white-space:nowrap}
.scroll tr>th:first-child{background:#eee}td.num{text-align:right;white-space:nowrap}
td.text{white-space:pre-wrap;min-width:16em;max-width:40em}.legend{font-size:12px;color:#444;margin:0 0 1em}
h2{border-bottom:1px solid #999}img{max-width:100%}.headline{font-size:16px;max-width:60em;line-height:1.5}
details.question{margin:.3em 0}details.question>summary{cursor:pointer}details.question[open]>summary{font-weight:bold}
.gold{color:#070;font-weight:bold}a.q{color:#035}"""

# Click a column header to sort its table (numbers as numbers, text after them); a second click reverses.
# A click on a question link opens that question's drill-down.
SCRIPT = """document.querySelectorAll("table").forEach(function(table){
table.querySelectorAll("thead th").forEach(function(th,col){th.addEventListener("click",function(){
var body=table.tBodies[0],rows=Array.from(body.rows),up=th.getAttribute("aria-sort")!=="ascending";
table.querySelectorAll("thead th").forEach(function(o){o.removeAttribute("aria-sort");});
th.setAttribute("aria-sort",up?"ascending":"descending");
function key(r){var t=r.cells[col]?r.cells[col].textContent.trim():"";var n=parseFloat(t);
return isNaN(n)||!/^[-+]?[0-9.]/.test(t)?[1,t]:[0,n];}
rows.sort(function(a,b){var x=key(a),y=key(b);if(x[0]!==y[0])return x[0]-y[0];
var c=x[0]?String(x[1]).localeCompare(String(y[1])):x[1]-y[1];return up?c:-c;});
rows.forEach(function(r){body.appendChild(r);});});});});
function openQuestion(id){var d=document.getElementById(id);if(d){d.open=true;d.scrollIntoView();}}
document.querySelectorAll("a.q").forEach(function(a){a.addEventListener("click",function(){
openQuestion(a.getAttribute("href").slice(1));});});
if(location.hash)openQuestion(location.hash.slice(1));"""


@dataclass
class Cell:
    """A table cell: its text, the full run name it stands for (``data-run``, shown on hover), a
    question it links to, and how it is laid out (``numeric``: right-aligned; ``long``: wrapped text
    with its line breaks kept)."""

    text: str
    run: str | None = None
    question: str | None = None
    numeric: bool = False
    long: bool = False
    title: str | None = None
    html: str | None = None  # markup of its own (already escaped), instead of ``text``

    def render(self, tag: str = "td") -> str:
        attributes = []
        if self.run is not None:
            attributes.append(f'data-run="{html.escape(self.run)}"')
        title = self.title or self.run
        if title is not None:
            attributes.append(f'title="{html.escape(title)}"')
        kind = "num" if self.numeric else "text" if self.long else ""
        if kind and tag == "td":
            attributes.append(f'class="{kind}"')
        body = self.html if self.html is not None else html.escape(self.text)
        if self.question is not None:
            body = f'<a class="q" href="#{question_anchor(self.question)}">{body}</a>'
        return f"<{tag}{''.join(' ' + a for a in attributes)}>{body}</{tag}>"


def cell(value: Any) -> Cell:
    """A plain value as a cell: numbers right-aligned, None as ``-``, other text as it is."""
    if isinstance(value, Cell):
        return value
    if value is None:
        return Cell("-")
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return Cell(f"{value:.3g}" if isinstance(value, float) else str(value), numeric=True)
    return Cell(str(value))


def table(headers: list[str | Cell], rows: list[list[Any]]) -> str:
    """A table in its own horizontally scrolling box (a wide table never widens the page)."""
    head = "".join(cell(h).render("th") for h in headers)
    body = "".join("<tr>" + "".join(cell(value).render() for value in row) + "</tr>" for row in rows)
    return f'<div class="scroll"><table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>'


def run_cell(name: str, short: dict[str, str]) -> Cell:
    """A run under its short name, its full name on hover and in ``data-run``."""
    return Cell(short.get(name, name), run=name)


def question_anchor(question_id: str) -> str:
    """The drill-down's element id of a question (letters, digits, ``-`` and ``_`` kept)."""
    return "q-" + "".join(c if c.isalnum() or c in "-_" else f"_{ord(c):x}" for c in str(question_id))
