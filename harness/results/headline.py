"""The report's opening sentences: the champion, how many configurations are tied with it and how
many are worse (the sweep's paired tests on its primary metric), and the front of what to ship."""

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
    counts = {"tied": 0, "worse": 0, "better": 0}
    for row in primaries:
        counts[_place(row, alpha)] += 1
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
        better = f", {counts['better']} better" if counts["better"] else ""
        plural = "s" if len(primaries) != 1 else ""
        sentences.append(f"Of the {len(primaries)} other configuration{plural}, {counts['tied']} "
                         f"{'is' if counts['tied'] == 1 else 'are'} tied with it and {counts['worse']} "
                         f"{'is' if counts['worse'] == 1 else 'are'} worse{better} on {html.escape(primary_label)} "
                         f"(paired {test}, corrected p).")
    if front is not None:
        members = [f"{_run(member, short)} ({html.escape(front['reasons'][member])})" for member in front["members"]]
        dominated = len(front["runs"]) - len(members)
        sentences.append(f"To ship: the front of {len(members)} configuration{'s' if len(members) != 1 else ''} "
                         f"that nothing else matches in quality while being cheaper or faster beyond noise "
                         f"({dominated} dominated): {'; '.join(members)}.")
    return '<p class="headline">' + " ".join(sentences) + "</p>"


def _place(row: dict[str, Any], alpha: float) -> str:
    """``better``, ``worse`` or ``tied``: the challenger's primary metric against the champion's."""
    p_value = row.get("p_corrected")
    difference = row.get("mean_difference")
    if not _number(p_value) or not _number(difference) or p_value >= alpha or difference == 0:
        return "tied"
    higher = row.get("direction", "higher") == "higher"
    return "better" if (difference > 0) == higher else "worse"


def _run(name: str, short: dict[str, str]) -> str:
    cell = run_cell(name, short)
    return cell.render("span").replace("<span ", '<span class="run" ', 1)


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
