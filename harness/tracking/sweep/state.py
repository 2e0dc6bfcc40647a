"""Bookkeeping shared by the main process and launcher workers through the sweep folder.

Workers of a parallel launcher are separate processes; the sweep folder is the one place every
job can read, so the sweep's id and its MLflow parent run id are kept in a small file there,
and each job leaves a ``summary.json`` beside its outputs for the end-of-sweep leaderboard.
"""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any

from harness.config.files import replace_file
from harness.config.secrets import redact
from harness.tracking.sweep.naming import unique_names

SWEEP_FILE = ".harness_sweep.json"
JOB_SUMMARY = "summary.json"
ROUND_RUN = "race_run.json"  # a race's configuration: its one run, opened in its first round
# The run a job opened, kept before anything is logged into it: `harness sync` and a resumed sweep
# log into it (no second run for the job, none left RUNNING).
JOB_RUN = "tracker_run.json"


def start_sweep(sweep_dir: Path) -> dict[str, Any]:
    sweep_dir.mkdir(parents=True, exist_ok=True)
    state = {"sweep_id": uuid.uuid4().hex}
    save_sweep(sweep_dir, state)
    return state


def save_sweep(sweep_dir: Path, state: dict[str, Any]) -> None:
    replace_file(sweep_dir / SWEEP_FILE, json.dumps(state))


def read_sweep(sweep_dir: Path) -> dict[str, Any]:
    path = sweep_dir / SWEEP_FILE
    return json.loads(path.read_text()) if path.exists() else {}


def write_job_summary(output_dir: Path, summary: dict[str, Any]) -> Path:
    output_dir.mkdir(parents=True, exist_ok=True)
    path = output_dir / JOB_SUMMARY
    replace_file(path, json.dumps(summary, indent=2, default=str))
    return path


def read_job_summary(output_dir: Path) -> dict[str, Any]:
    """The summary a job left in ``output_dir`` ({} when it left none)."""
    path = output_dir / JOB_SUMMARY
    return json.loads(path.read_text()) if path.exists() else {}


def round_run(output_dir: Path, sweep_id: str | None) -> str | None:
    """The run a race's configuration got in its first round (kept in its folder), if any."""
    return _round_record(output_dir, sweep_id).get("run_id")


def round_traced(output_dir: Path, sweep_id: str | None) -> set[str]:
    """The questions whose traces the configuration's rounds have handed to the writer so far."""
    return set(_round_record(output_dir, sweep_id).get("traced", []))


def keep_round_run(output_dir: Path, sweep_id: str, run_id: str, traced: set[str] = frozenset()) -> None:
    output_dir.mkdir(parents=True, exist_ok=True)
    replace_file(output_dir / ROUND_RUN, json.dumps({"sweep_id": sweep_id, "run_id": run_id, "traced": sorted(traced)}))


def keep_job_run(output_dir: Path, sweep_id: str, run_id: str) -> None:
    output_dir.mkdir(parents=True, exist_ok=True)
    replace_file(output_dir / JOB_RUN, json.dumps({"sweep_id": sweep_id, "run_id": run_id}))


def job_run(output_dir: Path, sweep_id: str | None) -> str | None:
    """The run this sweep's job in ``output_dir`` opened (kept by :func:`keep_job_run`), if any."""
    path = output_dir / JOB_RUN
    if not sweep_id or not path.exists():
        return None
    kept = json.loads(path.read_text())
    return kept.get("run_id") if kept.get("sweep_id") == sweep_id else None


def _round_record(output_dir: Path, sweep_id: str | None) -> dict[str, Any]:
    path = output_dir / ROUND_RUN
    if not sweep_id or not path.exists():
        return {}
    kept = json.loads(path.read_text())
    return kept if kept.get("sweep_id") == sweep_id else {}


def without_resume(overrides: list[str]) -> list[str]:
    """A job's or sweep's overrides without ``+resume=...``, which names the sweep, not the job."""
    return [o for o in overrides if o.split("=", 1)[0].lstrip("+~") != "resume"]


def finished_job(sweep_dir: Path, output_dir: Path, overrides: list[str]) -> dict[str, Any] | None:
    """The summary of this job if its sweep already finished it (a resumed sweep), else None."""
    state = read_sweep(sweep_dir)
    path = output_dir / JOB_SUMMARY
    if not state or not path.exists():
        return None
    summary = json.loads(path.read_text())
    same_job = (summary.get("sweep_id") == state["sweep_id"]  # summaries hold redacted overrides
                and without_resume(summary.get("overrides", [])) == without_resume(redact(overrides)))
    return summary if same_job and summary.get("status") == "FINISHED" else None


def collect_job_summaries(sweep_dir: Path, sweep_id: str) -> list[dict[str, Any]]:
    """Summaries of this sweep's jobs (a reused sweep folder may hold older ones), by job number."""
    summaries = []
    for path in sweep_dir.glob(f"*/{JOB_SUMMARY}"):
        summary = json.loads(path.read_text())
        if summary.get("sweep_id") == sweep_id:
            summaries.append(summary)
    summaries.sort(key=lambda s: int(s.get("job_num", 0)))
    # Tables and statistics key runs by these names: two jobs never share one.
    names = unique_names([s["name"] for s in summaries], [s.get("job_num") for s in summaries])
    return [{**summary, "name": name} for summary, name in zip(summaries, names)]
