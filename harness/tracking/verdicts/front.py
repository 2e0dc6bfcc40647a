"""The ship-candidate front at the edge: printed under the champion, written to the sweep folder
(``front.json``, so ``harness sync`` can log it later) and logged: the parent run gets the file and
a ``harness.front`` tag naming the members, each compared child a ``harness.front`` tag, ``front``
or ``dominated by <short name>``."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path
from typing import Any

from harness.config.files import replace_file
from harness.results.numbers import column_decimals, fixed
from harness.stats.front import Front, place, recorded_figure
from harness.tracking.base import Tracker

FRONT_FILE = "front.json"
TAG = "harness.front"
# MLflow keeps tag values up to 8,000 characters; a longer member list is cut with "...".
TAG_LIMIT = 5000


def run_infos(summaries: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Each finished run's info (``metrics.json`` in its folder): the run-level figures of the front."""
    infos = {}
    for summary in summaries:
        path = Path(summary["output_dir"]) / "metrics.json"
        infos[summary["name"]] = json.loads(path.read_text()).get("info", {}) if path.is_file() else {}
    return infos


def write_front(sweep_dir: Path, front: Front, names: list[str]) -> dict[str, Any]:
    """``front.json`` in ``sweep_dir``: the front with each run's short name (among ``names``, every
    run of the sweep, as the leaderboard shortens them); returns what was written."""
    from harness.console import short_names

    short, _, _ = short_names(names)
    record = {**front.to_dict(), "short": {run.name: short.get(run.name, run.name) for run in front.runs},
              "reasons": {run.name: front.reason(run.name, short) for run in front.runs}}
    replace_file(sweep_dir / FRONT_FILE, json.dumps(record, indent=2) + "\n")
    return record


def read_front(sweep_dir: Path) -> dict[str, Any] | None:
    """What :func:`write_front` left in ``sweep_dir``; None when no front was computed."""
    path = sweep_dir / FRONT_FILE
    return json.loads(path.read_text()) if path.is_file() else None


def log_front(record: dict[str, Any] | None, summaries: list[dict[str, Any]], tracker: Tracker,
              parent_id: str | None) -> None:
    """The tags: the parent's names the members, each compared child's its place (run ids from the
    summaries, which ``harness sync`` may have just filled in). The file is logged with the
    sweep's other files."""
    if record is None:
        return
    short = record["short"]
    members = " | ".join(short[name] for name in record["members"])
    if parent_id is not None:
        tracker.set_tags(parent_id, {TAG: members if len(members) <= TAG_LIMIT else members[:TAG_LIMIT - 3] + "..."})
    ids = {s["name"]: s.get("run_id") for s in summaries}
    for run in record["runs"]:
        if ids.get(run["name"]):
            tracker.set_tags(ids[run["name"]], {TAG: place(run, short)})



def front_lines(record: dict[str, Any], quality_label: str, width: int) -> list[str]:
    """The console's "Ship candidates" block: each member's quality, costs and latencies (rounded to
    what their intervals support), the axes' units, then why each member is on the front."""
    from harness.console import plain_table

    members = [run for run in record["runs"] if run["front"]]
    axes = record["axes"]
    columns = [("quality", quality_label), *((axis["name"], axis["name"]) for axis in axes)]
    figures = {key: [recorded_figure(run, key) for run in members] for key, _ in columns}
    places = {key: column_decimals(values) for key, values in figures.items()}
    rows = [[record["short"][run["name"]], *(fixed(figures[key][i][0], places[key]) for key, _ in columns)]
            for i, run in enumerate(members)]
    undecided = [run for run in record["runs"] if run.get("undecided")]
    others = len(record["runs"]) - len(members) - len(undecided)
    margin = record["primary"].get("margin")
    at = f" at margin {margin:g}" if margin is not None else ""
    # Prose is wrapped to the console's width, never cut: an 80-column terminal reads all of it.
    lines = textwrap.wrap(f"Ship candidates: {len(members)} of {len(record['runs'])} configurations on the front "
                          f"(shown as good as the champion on {quality_label}{at} and not dominated; "
                          f"{len(undecided)} cheaper or faster but undecided; {others} other"
                          f"{'s' if others != 1 else ''}: dominated, shown worse, or not cheaper or faster than the "
                          f"champion)", width)
    lines += plain_table(["run", *(label for _, label in columns)], rows, [False, *[True] * len(columns)], width,
                         shrink=0)
    by_unit: dict[str, list[str]] = {}
    for axis in axes:
        if axis["unit"]:
            by_unit.setdefault(axis["unit"], []).append(axis["name"])
    units = "; ".join(f"{', '.join(names)}: {unit}" for unit, names in by_unit.items())
    lines += textwrap.wrap(f"({units})", width - 2, initial_indent="  ", subsequent_indent="   ") if units else []
    for run in members:
        lines += textwrap.wrap(f"{record['short'][run['name']]}: {record['reasons'][run['name']]}", width,
                               subsequent_indent="  ")
    lines += undecided_lines(record, width)
    return lines


def undecided_lines(record: dict[str, Any], width: int) -> list[str]:
    """The cheaper or faster configurations whose quality is undecided, each with the questions that
    would decide it; or, when no candidate but the champion is cheaper, that nothing cheaper is shown
    as good."""
    undecided = [run for run in record["runs"] if run.get("undecided")]
    lines = []
    if record["members"] == [record["champion"]]:
        lines += textwrap.wrap("Nothing cheaper or faster than the champion is shown to be as good: ship the "
                               "champion" + (", or run more questions to decide the configurations below."
                                             if undecided else "."), width)
    if undecided:
        lines += textwrap.wrap("Undecided (cheaper or faster, but the questions could not show them as good):",
                               width)
        for run in undecided:
            lines += textwrap.wrap(f"{record['short'][run['name']]}: {record['reasons'][run['name']]}", width,
                                   initial_indent="  ", subsequent_indent="    ")
    return lines
