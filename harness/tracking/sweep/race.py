"""A racing sweep (hydra/sweeper=racing) in the tracker and on the console.

Each configuration has one run, opened by its first round's job (its id kept in the
configuration's folder, ``<sweep dir>/<configuration number>``, :func:`state.round_run`). A round's
job writes only the question traces it adds (in the sweep's writer process, while the next jobs
compute) and leaves its results and summary in the folder, the next round overwriting them. The
results (metrics, table, files) are logged once, with the last round the configuration ran: by the
sweeper as it leaves the race (:class:`RoundLogger`), or for the survivors at the end of the
sweep. Logging every round's results again cost more than a round of millisecond questions
computes (a race of 16 retrieval-only configurations launched 53 jobs, the grid 16). At the end
the runs get ``race/questions`` and ``race/eliminated_round`` (0: survived), and the parent
``race/rounds``, ``race/evaluations``, ``race/evaluations_fraction`` and the tag ``race.champion``.
The race's record (``race.json``, written by the sweeper) is the source.
"""

from __future__ import annotations

import dataclasses
import json
import logging
from pathlib import Path
from typing import Any

from omegaconf import DictConfig, OmegaConf

from harness.log_filters import FILE_ONLY
from harness.racing.race import RACE_FILE, round_lines
from harness.tracking.outcome import JobInfo
from harness.tracking.sweep import state as sweep
from harness.tracking.sweep.sync import job_outcome, log_summary, not_logged
from harness.tracking.base import Tracker

log = logging.getLogger(__name__)

# Leaderboard columns of a race, after the headline metrics.
RACE_COLUMNS = ["race/questions", "race/eliminated_round"]


def is_round(config: DictConfig) -> bool:
    """Whether a sweep's job is a race's round (the racing sweeper sets ``race.questions``)."""
    return OmegaConf.select(config, "race.questions") is not None


def round_tracker(config: DictConfig) -> Tracker:
    """The tracker of a race's rounds: question traces in the sweep's writer process however few a
    job has (``background_traces_from``), since the next round computes meanwhile."""
    from hydra.utils import instantiate

    background = {"background_traces_from": 0} if "background_traces_from" in config.tracking else {}
    return instantiate(config.tracking, **background)


def log_round_traces(tracker: Tracker, run_id: str | None, outcome, name: str, sweep_id: str) -> None:
    """The traces of the questions a round added, into its configuration's run, without reading
    the run first. What does not get written (a failure, a kill) is written when the race has
    decided the configuration: its run's logging looks up the traces the run lacks."""
    if not run_id or outcome.result is None:
        return
    traced = sweep.round_traced(outcome.output_dir, sweep_id)
    new = [row for row in outcome.result.rows if row["question_id"] not in traced]
    try:
        tracker.log_traces(run_id, dataclasses.replace(outcome.result, rows=new), name, fresh=True)
    except Exception:  # noqa: BLE001 - written when the run is logged
        log.info("the traces of %s's round were not written", name, exc_info=True, extra=FILE_ONLY)
        return
    sweep.keep_round_run(outcome.output_dir, sweep_id, run_id, traced | {row["question_id"] for row in new})


def log_decided(summaries: list[dict[str, Any]], tracker: Tracker, parent_id: str | None) -> None:
    """Logs each configuration the race has decided (it left the race, or the race is over) that
    has no logged run yet: into the run of its first round, with the last round it ran. A failure
    is reported on its own line and tried again at the end of the race (then by ``harness sync``)."""
    for summary in not_logged(summaries) if tracker.records else []:
        folder = Path(summary["output_dir"])
        log_summary(tracker, summary, job_outcome(summary), JobInfo(**summary["job_info"]), parent_id,
                    sweep.round_run(folder, summary.get("sweep_id")), True)
        sweep.write_job_summary(folder, summary)


class RoundLogger:
    """Logs, after each round of a race, the runs of the configurations that left it (their
    question traces are then written while the next rounds compute); the racing sweeper's link to
    the tracker, which it makes once."""

    def __init__(self, config: DictConfig, sweep_dir: Path) -> None:
        self.config, self.sweep_dir, self._tracker = config, sweep_dir, None

    def configurations_left(self, folders: list[str]) -> None:
        """``folders``: the folders (configuration numbers) of the configurations that left."""
        state = sweep.read_sweep(self.sweep_dir)
        summaries = []
        for folder in folders:
            path = self.sweep_dir / folder / sweep.JOB_SUMMARY
            summary = json.loads(path.read_text()) if path.exists() else {}
            if summary.get("sweep_id") == state.get("sweep_id") and "job_info" in summary:
                summaries.append(summary)
        if summaries:
            if self._tracker is None:
                self._tracker = round_tracker(self.config)
                self._tracker.share_outages(self.sweep_dir)  # one wait per outage, with the sweep's jobs
            log_decided(summaries, self._tracker, state.get("parent_run_id"))


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
