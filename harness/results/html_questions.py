"""The report's question drill-down: a click on a question shows it across runs (gold answers and
documents, each run's top passages, answer and scores)."""

from __future__ import annotations

import html
from typing import Any

from harness.results.html_table import Cell, question_anchor, run_cell, table

# How much of each passage a drill-down row shows (the whole passage on hover).
PASSAGE_CHARS = 160


def drill_down(tables: dict[str, list[dict[str, Any]]], short: dict[str, str], metrics: list[str],
               labels: dict[str, str], questions: list[str]) -> str:
    """One closed ``<details>`` per question id of ``questions``, in that order (its runs in the
    order of ``tables``); each opens onto a table with a row per run."""
    by_run = {name: {row["question_id"]: row for row in rows} for name, rows in tables.items()}
    parts = []
    for qid in questions:
        rows = {name: found[qid] for name, found in by_run.items() if qid in found}
        if not rows:
            continue
        first = next(iter(rows.values()))
        gold = first.get("gold_answers") or ([first["expected_answer"]] if first.get("expected_answer") else [])
        facts = [f"gold answer: {html.escape(' | '.join(map(str, gold)))}" if gold else "",
                 f"gold documents: {html.escape(', '.join(map(str, first.get('gold_doc_ids') or [])) or '-')}"]
        shown = [m for m in metrics if any(row.get(m) is not None for row in rows.values())]
        body = table(["run", "top passages", "answer", *(labels.get(m, m) for m in shown)],
                     [[run_cell(name, short), _passages(row), _answer(row),
                       *(Cell(_score(row.get(m)), numeric=True) for m in shown)] for name, row in rows.items()])
        parts.append(f'<details class="question" id="{question_anchor(qid)}"><summary>{html.escape(qid)}: '
                     f'{html.escape(str(first.get("question", "")))}</summary>'
                     f'<p>{" &middot; ".join(f for f in facts if f)}</p>{body}</details>')
    return "".join(parts)


def pick_questions(tables: dict[str, list[dict[str, Any]]], first: list[str], limit: int) -> list[str]:
    """The questions ``first`` names (e.g. those the worst answers list), then the others in the
    first run's order, ``limit`` in all (``first`` always kept)."""
    order = [row["question_id"] for row in next(iter(tables.values()), [])]
    chosen = list(dict.fromkeys(q for q in first if q in order))
    chosen += [q for q in order if q not in chosen][:max(0, limit - len(chosen))]
    return chosen


def _passages(row: dict[str, Any]) -> Cell:
    """The retrieved documents in rank order, gold ones marked, with the start of the passage text
    the prompt held (all of it on hover)."""
    gold = set(row.get("gold_doc_ids") or [])
    contexts = row.get("contexts") or []
    items = []
    for rank, doc in enumerate(row.get("retrieved_doc_ids") or [], start=1):
        mark = f'<span class="gold">{html.escape(str(doc))} (gold)</span>' if doc in gold else html.escape(str(doc))
        text = ""
        if rank <= len(contexts):
            passage = " ".join(str(contexts[rank - 1]).split())
            shown = passage if len(passage) <= PASSAGE_CHARS else passage[:PASSAGE_CHARS - 3] + "..."
            text = f': <span title="{html.escape(passage)}">{html.escape(shown)}</span>'
        items.append(f"{rank}. {mark}{text}")
    return Cell("", long=True, html="\n".join(items) or "-")


def _answer(row: dict[str, Any]) -> Cell:
    if row.get("answer_error"):
        return Cell(f"(failed: {row['answer_error']})", long=True)
    return Cell(str(row["answer"]) if row.get("answer") is not None else "-", long=True)


def _score(value: Any) -> str:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return f"{value:.3g}"
    return "-" if value is None else str(value)
