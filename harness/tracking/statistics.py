"""The sweep's statistics at the edge: power planning before it, paired tests after it."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

from harness.results.table import read_table
from harness.stats.report import SweepStatistics
from harness.stats.sweep_report import StatsReport
from harness.tracking.base import Tracker
from harness.tracking.champion import log_champion, write_champion

log = logging.getLogger(__name__)

# The statistics settings a sweep used, logged to its parent run; ``harness compare`` reads them back.
STATS_SETTINGS = "stats_settings.json"


def plan_sweep(stats: SweepStatistics, n_questions: int, sweep_dir: Path, tracker: Tracker,
               parent_id: str | None) -> None:
    """Prints what the dataset's size can detect, before any job spends time."""
    text = stats.plan(n_questions)
    print(text)
    path = sweep_dir / "power_plan.txt"
    path.write_text(text + "\n")
    tracker.log_files(parent_id, [path])


def report_sweep_statistics(stats: SweepStatistics, summaries: list[dict[str, Any]], sweep_dir: Path,
                            tracker: Tracker, parent_id: str | None, headline: list[str] = ()) -> None:
    """Compares the finished runs with the champion; logs the table, verdicts and plot to the
    parent, with the champion's ``headline`` metrics (:mod:`harness.tracking.champion`), and each
    challenger's figures to its own run. Bad input is reported, never fatal."""
    finished = [s for s in summaries if s["status"] == "FINISHED"]
    try:
        tables = {s["name"]: read_table(Path(s["output_dir"])) for s in finished}
        report = stats.compare(tables)
    except ValueError as err:  # fewer than two runs, a missing metric, misaligned questions, a bad table
        message = f"statistics not computed: {err}"
        print(message)
        path = sweep_dir / "stats_not_computed.txt"
        path.write_text(message + "\n")
        tracker.log_files(parent_id, [path])
        return
    print_report(report)
    files = write_stats_report(report, sweep_dir)
    champion = write_champion(sweep_dir, report.champion, finished, list(headline))
    tracker.log_files(parent_id, files)
    log_champion(champion, finished, tracker, parent_id)
    for summary in finished:
        metrics = report.run_metrics.get(summary["name"], {})
        if summary["name"] == report.champion:
            metrics = {"stats/is_champion": 1.0}
        tracker.log_metrics(summary.get("run_id"), metrics)
    print(f"Statistics: {files[0]}")


def write_stats_report(report: StatsReport, folder: Path) -> list[Path]:
    """``stats.csv``, ``stats_verdicts.csv``, the settings used (``stats_settings.json``, which
    ``harness compare`` reads back) and (when it can be drawn) ``stats.png``."""
    files = [folder / "stats.csv", folder / "stats_verdicts.csv", folder / STATS_SETTINGS]
    report.to_csv(files[0])
    report.verdicts_to_csv(files[1])
    files[2].write_text(json.dumps(report.settings, indent=2) + "\n")
    try:
        files.append(report.plot(folder / "stats.png"))
    except Exception:  # a plot is a convenience; the numbers above are already saved
        log.exception("could not draw the statistics plot")
    return files


def print_report(report: StatsReport, console=None) -> None:
    """The comparison table (CI labelled with its level) and verdicts, as wide as the console; run
    names shortened to what differs between the runs."""
    from rich import box
    from rich.table import Table

    from harness.console import console as default_console
    from harness.console import escape, short_names

    console = console or default_console()
    short, _, keys = short_names([report.champion, *(c.name for c in report.result.challengers)])
    label = f" ({', '.join(keys)})" if keys else ""
    table = Table(title=escape(f"Paired comparison with the champion{label}: {short[report.champion]} "
                               f"(p corrected: {report.result.correction})"), box=box.SIMPLE_HEAD)
    for column in report.summary_columns():
        numeric = column not in ("challenger", "metric")
        table.add_column(column, overflow="fold", justify="right" if numeric else "left",
                         no_wrap=column in (report.ci_label, "metric"))
    for challenger, *cells in report.summary_rows():
        table.add_row(escape(short[challenger]), *map(escape, cells))
    console.print(table)
    for name, text in report.verdict_lines():
        console.print(f"[bold]{escape(short[name])}[/bold]: {escape(text)}")
