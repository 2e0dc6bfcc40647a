"""A racing sweep (hydra/sweeper=racing) in the tracker and on the console.

Each configuration keeps one run across rounds (reopened by the next round's job); at the end of
the sweep each run gets ``race/questions`` and ``race/eliminated_round`` (0: survived), and the
parent ``race/rounds``, ``race/evaluations``, ``race/evaluations_fraction`` and the tag
``race.champion``. The race's record (``race.json``, written by the sweeper) is the source.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from harness.racing.race import RACE_FILE, round_lines
from harness.tracking.sweep import state as sweep
from harness.tracking.base import Tracker

# Leaderboard columns of a race, after the headline metrics.
RACE_COLUMNS = ["race/questions", "race/eliminated_round"]


def earlier_round_run(output_dir: Path, sweep_id: str | None, questions: int | None) -> str | None:
    """The run a race job's configuration got in an earlier round (its folder's summary), if any."""
    path = output_dir / sweep.JOB_SUMMARY
    if questions is None or not sweep_id or not path.exists():
        return None
    summary = json.loads(path.read_text())
    return summary.get("run_id") if summary.get("sweep_id") == sweep_id else None


def _figures(summary: dict[str, Any], record: dict[str, Any]) -> dict[str, int] | None:
    """The race's figures of a job, found by its folder (``<sweep dir>/<configuration number>``)."""
    folder = Path(summary.get("output_dir", "")).name
    if not folder.isdigit() or int(folder) >= len(record["configurations"]):
        return None
    run = record["runs"][record["configurations"][int(folder)]]
    return {"race/questions": int(run["questions"]), "race/eliminated_round": int(run["eliminated_round"])}


def add_race_figures(summaries: list[dict[str, Any]], record: dict[str, Any]) -> list[dict[str, Any]]:
    """The summaries with each run's race figures among its metrics, saved to its summary.json
    too (``harness report`` reads them there)."""
    for summary in summaries:
        figures = _figures(summary, record)
        if figures is not None:
            summary["metrics"] = {**(summary.get("metrics") or {}), **figures}
            sweep.write_job_summary(Path(summary["output_dir"]), summary)
    return summaries


def survivors(summaries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The runs still in the race at its end: the end-of-sweep statistics compare only these
    (they ran the same questions)."""
    return [s for s in summaries if not (s.get("metrics") or {}).get("race/eliminated_round")]


def log_race(record: dict[str, Any], summaries: list[dict[str, Any]], sweep_dir: Path, tracker: Tracker,
             parent_id: str | None) -> None:
    """Each run's figures, the parent's figures, tag and the record file."""
    for summary in summaries:
        figures = _figures(summary, record)
        if figures is not None and summary.get("run_id"):
            tracker.log_metrics(summary["run_id"], {k: float(v) for k, v in figures.items()})
    if parent_id:
        tracker.log_metrics(parent_id, {
            "race/rounds": float(len(record["rounds"])), "race/evaluations": float(record["evaluations"]),
            "race/evaluations_fraction": record["evaluations"] / max(record["grid_evaluations"], 1)})
        tracker.set_tags(parent_id, {"race.champion": record["champion"]})
        tracker.log_files(parent_id, [sweep_dir / RACE_FILE])


def print_race(record: dict[str, Any]) -> None:
    for line in round_lines(record):
        print(line)
