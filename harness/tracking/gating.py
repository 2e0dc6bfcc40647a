"""CI gates at the edge: checked on a finished run or sweep, printed and logged to the parent."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from harness.gates.rules import Gates
from harness.results.table import read_table
from harness.tracking.base import Tracker
from harness.tracking.front import read_front

GATES_FILE = "gates_failed.txt"


def check_gates(gates: Gates | None, summaries: list[dict[str, Any]], tracker: Tracker, folder: Path,
                parent_id: str | None) -> list[str]:
    """Checks every finished run; prints one line per failed gate and returns them.

    A baseline named by a regression gate is looked up among the runs first, then in the tracker.
    """
    (folder / GATES_FILE).unlink(missing_ok=True)  # a resumed sweep's folder may hold an older verdict
    if gates is None or not gates.enabled:
        return []
    finished = [s for s in summaries if s["status"] == "FINISHED"]
    tables = {s["name"]: read_table(Path(s["output_dir"])) for s in finished} if gates.baselines() else {}
    baselines = {}
    for ref in gates.baselines():
        baselines[ref] = tables[ref] if ref in tables else _logged_table(tracker, ref)
    failures = gates.check({s["name"]: s.get("metrics") or {} for s in finished}, tables,
                           {ref: rows for ref, rows in baselines.items() if rows is not None}, read_front(folder))
    if not failures:
        print(f"Gates: all {len(gates.rules)} passed")
        return []
    for line in failures:
        print(line)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / GATES_FILE
    path.write_text("\n".join(failures) + "\n")
    tracker.log_files(parent_id, [path])
    return failures


def _logged_table(tracker: Tracker, ref: str) -> list[dict[str, Any]] | None:
    """A baseline run's per-question rows from the tracker; None (the gate fails) if it has none."""
    try:
        with tempfile.TemporaryDirectory() as tmp:
            return read_table(tracker.fetch_table(tracker.resolve_run(ref), Path(tmp)))
    except LookupError:
        return None
