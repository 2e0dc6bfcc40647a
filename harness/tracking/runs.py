"""Finding a run's per-question table: in a local run folder, or through the tracker.

Shared by ``harness compare``, ``harness annotate`` and ``harness meta-eval``. A run is named by a
tracker run id or run name, or (for :func:`open_run_table`) a folder holding the per-question
table, or that file itself.
"""

from __future__ import annotations

import os
from pathlib import Path

from harness.results.table import FILE_NAME
from harness.tracking.base import RunRef, Tracker


def local_table(ref: str) -> Path | None:
    """``ref`` as a local per-question table (a run folder or the file), None if it names no path.

    A ref that looks like a path (has a separator or ends in .jsonl) but does not exist raises
    FileNotFoundError rather than being looked up in the tracker.
    """
    path = Path(ref)
    if path.is_dir():
        if not (path / FILE_NAME).is_file():
            raise FileNotFoundError(f"run folder {path} has no {FILE_NAME}")
        return path / FILE_NAME
    if path.is_file():
        return path
    if os.sep in ref or ref.endswith(".jsonl"):
        raise FileNotFoundError(f"no run folder or per-question table at {path}")
    return None


def open_run_table(ref: str, tracker: Tracker, folder: Path) -> tuple[Path, RunRef | None]:
    """The per-question table for ``ref`` (fetched into ``folder`` when the tracker holds it) and
    the run it belongs to (None for a local folder)."""
    path = local_table(ref)
    if path is not None:
        return path, None
    run = tracker.resolve_run(ref)
    return tracker.fetch_table(run, folder), run
