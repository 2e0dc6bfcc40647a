"""Console tables that fit: the terminal's width (120 in a log), escaped text, short run names.

Shared by every table the harness prints (leaderboard, per-route summary, statistics), so they
all read the width the same way and none of them loses ``[...]`` to rich's markup.
"""

from __future__ import annotations

import os
from typing import Any

# Width of a table written to a log or a pipe, where there is no terminal to measure.
LOG_WIDTH = 120
# Table cells: headers of several words wrap at their spaces within HEADER_WIDTH characters (a
# metric's name is never cut), run names fold at RUN_WIDTH; each column costs COLUMN_BORDER
# characters of padding and rule.
HEADER_WIDTH, RUN_WIDTH, COLUMN_BORDER = 10, 36, 3


def console():
    """A rich Console as wide as the terminal; ``LOG_WIDTH`` columns when output is not a terminal
    (unless ``COLUMNS`` says otherwise)."""
    from rich.console import Console

    found = Console()
    if found.is_terminal or os.environ.get("COLUMNS"):
        return found
    return Console(width=LOG_WIDTH)


def escape(text: Any) -> str:
    """``text`` as literal rich text: ``metrics=[retrieval,key_facts]`` keeps its brackets."""
    from rich.markup import escape as rich_escape

    return rich_escape(str(text))


def split_name(name: str) -> list[str]:
    """A run name's ``key=value`` parts, split on the commas outside brackets and quotes.

    >>> split_name("chunker=recursive,metrics=[retrieval,key_facts],retriever=bm25")
    ['chunker=recursive', 'metrics=[retrieval,key_facts]', 'retriever=bm25']
    """
    parts, depth, quote, current = [], 0, "", []
    for char in name:
        if quote:
            quote = "" if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char in "[{(":
            depth += 1
        elif char in "]})":
            depth = max(0, depth - 1)
        elif char == "," and depth == 0:
            parts.append("".join(current))
            current = []
            continue
        current.append(char)
    parts.append("".join(current))
    return [part for part in parts if part]


def short_names(names: list[str]) -> tuple[dict[str, str], list[str], list[str]]:
    """What a console table shows of each run name: the parts that differ between ``names``.

    Returns the short name of each name, the parts all names share, and the keys of the parts
    that differ when every name varies the same keys (then the short names hold only their
    values and a header can name the keys once); otherwise ``[]``. The full names stay in MLflow
    and the CSV.

    >>> short, common, keys = short_names(["generator=local,retriever=bm25", "generator=local,retriever=dense"])
    >>> short["generator=local,retriever=dense"], common, keys
    ('dense', ['generator=local'], ['retriever'])
    """
    split = {name: split_name(name or "") for name in names}
    if len(split) < 2:
        return {name: name for name in names}, [], []
    first, *others = split.values()
    common = [part for part in first if all(part in parts for parts in others)]
    kept = {name: [part for part in parts if part not in common] for name, parts in split.items()}
    key_lists = {tuple(part.split("=", 1)[0] for part in parts) for parts in kept.values()}
    keys = list(next(iter(key_lists))) if len(key_lists) == 1 and all("=" in p for v in kept.values() for p in v) \
        else []
    short = {}
    for name, parts in kept.items():
        shown = [part.split("=", 1)[1] for part in parts] if keys else parts
        short[name] = ", ".join(shown) if shown else name
    return short, common, keys


def text_width(text: str) -> int:
    """Columns a cell needs on its widest line."""
    return max((len(line) for line in str(text).splitlines()), default=0)


def metric_header(name: str) -> str:
    """``retrieval/ndcg_at_5`` -> ``retrieval`` over ``ndcg_at_5``: two short header lines."""
    suite, _, metric = name.rpartition("/")
    return f"{suite}/\n{metric}" if suite else name


def column_groups(fixed: int, widths: list[int], available: int) -> list[list[int]]:
    """Indices of ``widths`` split into consecutive groups whose sum plus ``fixed`` fits ``available``
    (a table too wide for the console becomes several, each repeating the fixed columns)."""
    groups: list[list[int]] = [[]]
    used = fixed
    for index, width in enumerate(widths):
        if groups[-1] and used + width > available:
            groups.append([])
            used = fixed
        groups[-1].append(index)
        used += width
    return groups


def plain_table(headers: list[str], rows: list[list[str]], numeric: list[bool], width: int = LOG_WIDTH,
                shrink: int | None = None, above: list[str] | None = None) -> list[str]:
    """A table as plain text lines of at most ``width`` columns: headers whole (a label never
    breaks inside a word), numbers right-aligned, text left-aligned; when it is too wide, column
    ``shrink`` (a name) is cut with ``~`` at its end. ``above``: a header line over the headers,
    each label starting where its column starts (a group of columns, e.g. a route's figures).

    >>> plain_table(["run", "f1"], [["bm25", "0.5"], ["dense", "0.25"]], [False, True])
    ['run      f1', 'bm25    0.5', 'dense  0.25']
    """
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(headers)]
    excess = sum(widths) + 2 * (len(widths) - 1) - width
    if excess > 0 and shrink is not None:
        widths[shrink] = max(len(headers[shrink]), widths[shrink] - excess, 8)

    def fit(text: str, index: int) -> str:
        text = text if len(text) <= widths[index] else text[:widths[index] - 1] + "~"
        return text.rjust(widths[index]) if numeric[index] else text.ljust(widths[index])

    lines = ["  ".join(fit(cell, i) for i, cell in enumerate(line)).rstrip() for line in [headers, *rows]]
    if above:
        top = ""
        for index, label in enumerate(above):
            start = sum(widths[:index]) + 2 * index
            if label:
                top = top.ljust(start) + label if len(top) < start else top
        lines.insert(0, top)
    return lines
