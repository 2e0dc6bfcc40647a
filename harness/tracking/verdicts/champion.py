"""The sweep's champion on its parent run: ``champion/<metric>`` for each headline metric and the
``harness.champion`` tag, so the MLflow UI's run list says who won without opening the sweep.

The champion is the one the end-of-sweep statistics picked (``stats.champion``, else the best run
on the primary metric). It is written to the sweep folder first (``champion.json``), so that
``harness sync`` logs it when the tracking server was down at the sweep's end.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from harness.config.files import replace_file
from harness.tracking.base import Tracker

CHAMPION_FILE = "champion.json"
PREFIX = "champion/"
TAG = "harness.champion"
RUN_ID_TAG = "harness.champion_run_id"


def write_champion(sweep_dir: Path, champion: str, summaries: list[dict[str, Any]],
                   headline: list[str]) -> dict[str, Any]:
    """The champion's name, run id and headline metrics (those it has, NaN left out), written to
    ``champion.json`` in ``sweep_dir``; returns them."""
    summary = next(s for s in summaries if s["name"] == champion)
    metrics = summary.get("metrics") or {}
    record = {"name": champion, "job_num": summary.get("job_num"),
              "metrics": {m: float(metrics[m]) for m in headline
                          if metrics.get(m) is not None and not math.isnan(float(metrics[m]))}}
    replace_file(sweep_dir / CHAMPION_FILE, json.dumps(record, indent=2) + "\n")
    return record


def read_champion(sweep_dir: Path) -> dict[str, Any] | None:
    """What :func:`write_champion` left in ``sweep_dir``; None when no champion was picked."""
    path = sweep_dir / CHAMPION_FILE
    return json.loads(path.read_text()) if path.exists() else None


def log_champion(record: dict[str, Any] | None, summaries: list[dict[str, Any]], tracker: Tracker,
                 parent_id: str | None) -> None:
    """Logs the champion's metrics and tags to the sweep's parent run (its run id from the
    summaries, which ``harness sync`` may have just filled in)."""
    if record is None or parent_id is None:
        return
    tracker.log_metrics(parent_id, {PREFIX + name: value for name, value in record["metrics"].items()})
    tags = {TAG: record["name"]}
    run_id = next((s.get("run_id") for s in summaries if s["name"] == record["name"]), None)
    if run_id:
        tags[RUN_ID_TAG] = run_id
    tracker.set_tags(parent_id, tags)
