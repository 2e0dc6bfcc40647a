"""The report's opening sentences: the champion, how many configurations are better, equivalent,
non-inferior, undecided or worse at the margin (the sweep's verdicts on its primary metric), the
front of what to ship, and the cheaper configurations that more questions would decide."""

from __future__ import annotations

import html
import math
from typing import Any

from harness.results.html_table import run_cell
from harness.results.numbers import with_ci


def headline(champion: str | None, stats_rows: list[dict[str, Any]], front: dict[str, Any] | None,
             short: dict[str, str], primary_label: str, alpha: float) -> str:
    """The sentences as HTML (each run under its short name, its full name on hover).

    Args:
        champion: the sweep's champion (None: no statistics were computed).
        stats_rows: the rows of ``stats.csv`` (one per challenger and metric).
        front: ``front.json`` as written at the sweep's end, or None.
        short: every run's short name. primary_label: the primary metric's short label.
        alpha: the significance level the corrected p-values were held to.
    """
    if champion is None:
        return ""
    name = _run(champion, short)
    primaries = [row for row in stats_rows if row.get("role") == "primary"]
    counts = {verdict: 0 for verdict in ("better", "equivalent", "non_inferior", "undecided", "worse")}
    for row in primaries:
        counts[_place(row)] += 1
    quality = ""
    if front is not None:
        figure = next(run["quality"] for run in front["runs"] if run["name"] == champion)
        level = round(100 * (1 - front["settings"]["alpha"]))
        low, high = figure["low"], figure["high"]
        quality = (f" ({html.escape(primary_label)} {with_ci(figure['value'], low, high)}, {level}% interval "
                   f"[{with_ci(low, low, high)}, {with_ci(high, low, high)}])")
    sentences = [f"The champion is {name}{quality}."]
    if primaries:
        test = f"{primaries[0].get('test', 't')}-test" if primaries[0].get("test") != "permutation" else \
            "permutation test"
        plural = "s" if len(primaries) != 1 else ""
        words = {"better": "better", "equivalent": "equivalent", "non_inferior": "non-inferior",
                 "undecided": "undecided", "worse": "worse"}
        parts = [f"{count} {words[verdict]}" for verdict, count in counts.items() if count]
        margin = primaries[0].get("margin")
        at = f" at margin {_margin(margin)}" if margin not in (None, "") else ""
        sentences.append(f"Of the {len(primaries)} other configuration{plural} on {html.escape(primary_label)}"
                         f"{at}: {', '.join(parts)} (paired {test}, intervals under the sweep's correction; "
                         f"undecided is not tied).")
    if front is not None:
        members = [f"{_run(member, short)} ({html.escape(front['reasons'][member])})" for member in front["members"]]
        undecided = [f"{_run(name, short)} ({html.escape(front['reasons'][name])})"
                     for name in front.get("undecided", [])]
        sentences.append(f"To ship: the front of {len(members)} configuration{'s' if len(members) != 1 else ''} "
                         f"shown as good as the champion and not beaten by anything as good and cheaper or faster "
                         f"beyond noise: {'; '.join(members)}.")
        if front["members"] == [champion]:
            sentences.append("Nothing cheaper or faster is shown to be as good as the champion.")
        if undecided:
            sentences.append(f"Undecided, cheaper or faster but not shown as good: {'; '.join(undecided)}.")
    return '<p class="headline">' + " ".join(sentences) + "</p>"


def _place(row: dict[str, Any]) -> str:
    """The challenger's verdict against the champion on the primary metric (``stats.csv``'s column)."""
    verdict = row.get("verdict")
    return verdict if verdict in ("better", "equivalent", "non_inferior", "worse") else "undecided"


def _margin(value: Any) -> str:
    return f"{float(value):g}" if _number(value) or isinstance(value, str) else str(value)


def _run(name: str, short: dict[str, str]) -> str:
    cell = run_cell(name, short)
    return cell.render("span").replace("<span ", '<span class="run" ', 1)


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
