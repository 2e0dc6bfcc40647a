"""``harness report``: one self-contained HTML file for a sweep or a run.

    harness report RUN_OR_SWEEP --html out.html [--tracking-uri sqlite:///mlflow.db] [--worst 10]

RUN_OR_SWEEP is a sweep folder (``multirun/<date>/<time>``), a run folder, or a tracked run id or
name (a sweep's parent run, or one run; its folder, named by its tags, is read). The page opens
with what was found (the champion, each other configuration's verdict at the margin, the front of
what to ship and the undecided cheaper configurations), then the front's quality-against-cost plot, the leaderboard,
the statistics table with its CI plot, a per-route table, the judge self-check figures if logged,
the worst answers of the best run, the first two runs' answers side by side, and the questions
(a click shows one across runs). Each run has one short name throughout (its overrides on hover
and in the Runs key); numbers are rounded to what their interval supports. The file is also logged
to the sweep's parent run (or the run) when one is recorded in MLflow.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import sys
from pathlib import Path

from harness.cli.compose import add_tracking_argument, compose, tracker
from harness.metrics.units import legend_line, short_labels
from harness.racing.race import read_race, round_lines
from harness.results.html_report import ReportInputs, render_html
from harness.results.table import read_table
from harness.tracking.verdicts.champion import read_champion
from harness.tracking.verdicts.front import read_front
from harness.tracking.verdicts.leaderboard import legend_line_or_name, short_labels_or_names
from harness.tracking.verdicts.statistics import STATS_SETTINGS
from harness.tracking.verdicts.selfcheck_flags import MARK
from harness.tracking.sweep.state import JOB_SUMMARY, collect_job_summaries, read_sweep

_FIXED_COLUMNS = ("job", "run", "status", "failed")  # not metrics (the failed questions: "39/300 (13%)")


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="harness report", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("source", help="sweep folder, run folder, or MLflow run id or name")
    parser.add_argument("--html", required=True, type=Path, help="the HTML file to write")
    add_tracking_argument(parser)
    parser.add_argument("--worst", type=int, default=10, help="how many worst answers to list")
    parser.add_argument("--questions", type=int, default=100,
                        help="how many questions the drill-down holds (the worst answers' always among them)")
    args = parser.parse_args(argv)
    config = compose([], args.tracking_uri)
    store = tracker(config)
    try:
        folder = _folder_of(args.source, store)
        inputs, run_id = _from_folder(folder)
    except (LookupError, FileNotFoundError) as err:
        print(f"harness report: {err}", file=sys.stderr)
        return 2
    inputs.worst, inputs.questions = args.worst, args.questions
    _rounding(inputs, folder, config)
    args.html.parent.mkdir(parents=True, exist_ok=True)
    args.html.write_text(render_html(inputs), encoding="utf-8")
    print(f"Report: {args.html}")
    if run_id:
        try:
            store.log_files(run_id, [args.html])
            print(f"Logged to run {run_id} ({store.describe()})")
        except Exception as err:  # the file is written; a tracking failure is reported, not fatal
            print(f"harness report: not logged to run {run_id}: {err}", file=sys.stderr)
    return 0


def _folder_of(source: str, store) -> Path:
    """A folder as given, else the folder of the tracked run: a sweep parent's sweep folder, a
    run's output folder (both named by its tags)."""
    if Path(source).is_dir():
        return Path(source)
    run = store.resolve_run(source)
    key = "harness.sweep_dir" if run.tags.get("harness.role") == "sweep" else "harness.output_dir"
    folder = Path(run.tags.get(key, ""))
    if not run.tags.get(key) or not folder.is_dir():
        raise FileNotFoundError(f"run {run.run_id}: its folder ({key}={run.tags.get(key)}) is not on this machine")
    return folder


def _from_folder(folder: Path) -> tuple[ReportInputs, str | None]:
    state = read_sweep(folder)
    if state:
        summaries = [s for s in collect_job_summaries(folder, state.get("sweep_id", "")) if s["status"] == "FINISHED"]
        run_id = state.get("parent_run_id")
    elif (folder / JOB_SUMMARY).is_file():
        summaries = [json.loads((folder / JOB_SUMMARY).read_text())]
        run_id = summaries[0].get("run_id")
    else:
        raise FileNotFoundError(f"{folder} is neither a sweep folder nor a run folder (no {JOB_SUMMARY})")
    order, headline = _leaderboard(_read(folder / "leaderboard.csv"), [s["name"] for s in summaries],
                                   summaries[0]["metrics"] if summaries else {})
    by_name = {s["name"]: s for s in summaries}
    # a column a failed self-check marked ("judge/x (!)") keeps its mark beside its short label
    found = short_labels_or_names([m.removesuffix(MARK) for m in headline], short_labels)
    labels = {m: found[m.removesuffix(MARK)] + ("(!)" if m.endswith(MARK) else "") for m in headline}
    inputs = ReportInputs(title=f"harness report: {folder}", runs={n: by_name[n]["metrics"] for n in order},
                          tables={n: read_table(Path(by_name[n]["output_dir"])) for n in order}, headline=headline,
                          stats_csv=_read(folder / "stats.csv"), stats_png=_read_bytes(folder / "stats.png"),
                          notes=round_lines(read_race(folder) or {}) if state else [],  # a race's eliminations
                          labels=labels, legend=[legend_line_or_name(m.removesuffix(MARK), labels[m], legend_line)
                                                  for m in headline],
                          champion=(read_champion(folder) or {}).get("name") if state else None,
                          front=read_front(folder) if state else None)
    return inputs, run_id


def _rounding(inputs: ReportInputs, folder: Path, config) -> None:
    """The bootstrap that rounds the report's numbers: the sweep's own statistics settings
    (``stats_settings.json``), else the configured ``stats`` group's."""
    text = _read(folder / STATS_SETTINGS)
    settings = json.loads(text) if text else {}
    stats = config.get("stats") or {}
    inputs.alpha = float(settings.get("alpha", stats.get("alpha", inputs.alpha)))
    inputs.resamples = int(settings.get("resamples", stats.get("resamples", inputs.resamples)))
    inputs.seed = int(settings.get("seed", stats.get("seed", inputs.seed)))


def _leaderboard(text: str | None, names: list[str], metrics: dict) -> tuple[list[str], list[str]]:
    """Run order and headline columns from leaderboard.csv; without it, the given order and the
    run's first metrics."""
    if not text:
        return names, sorted(k for k in metrics if "/" in k)[:5]
    reader = csv.DictReader(io.StringIO(text))
    headline = [c for c in reader.fieldnames or [] if c not in _FIXED_COLUMNS]
    order = [row["run"] for row in reader if row["run"] in names]
    return order + [n for n in names if n not in order], headline


def _read(path: Path) -> str | None:
    return path.read_text() if path.is_file() else None


def _read_bytes(path: Path) -> bytes | None:
    return path.read_bytes() if path.is_file() else None
