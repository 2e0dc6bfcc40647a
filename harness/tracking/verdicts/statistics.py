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
from harness.tracking.verdicts.champion import log_champion, write_champion
from harness.tracking.verdicts.front import FRONT_FILE, front_lines, log_front, run_infos, write_front

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
                            tracker: Tracker, parent_id: str | None, headline: list[str] = (),
                            brief: bool = False) -> StatsReport | None:
    """Compares the finished runs with the champion; logs the table, verdicts and plot to the
    parent, with the champion's ``headline`` metrics (:mod:`harness.tracking.verdicts.champion`), and each
    challenger's figures to its own run. Bad input is reported, never fatal."""
    finished = [s for s in summaries if s["status"] == "FINISHED"]
    (sweep_dir / FRONT_FILE).unlink(missing_ok=True)  # a resumed sweep's folder may hold an older front
    try:
        tables = {s["name"]: read_table(Path(s["output_dir"])) for s in finished}
        report = stats.compare(tables)
    except ValueError as err:  # fewer than two runs, a missing metric, misaligned questions, a bad table
        message = f"statistics not computed: {err}"
        print(message)
        path = sweep_dir / "stats_not_computed.txt"
        path.write_text(message + "\n")
        tracker.log_files(parent_id, [path])
        return None
    if brief:
        print_brief_report(report)
    else:
        print_report(report)
    files = write_stats_report(report, sweep_dir)
    champion = write_champion(sweep_dir, report.champion, finished, list(headline))
    front = ship_front(stats, tables, finished, report, sweep_dir, [s["name"] for s in summaries])
    tracker.log_files(parent_id, files + ([sweep_dir / FRONT_FILE] if front else []))
    log_champion(champion, finished, tracker, parent_id)
    log_front(front, finished, tracker, parent_id)
    for summary in finished:
        metrics = report.run_metrics.get(summary["name"], {})
        if summary["name"] == report.champion:
            metrics = {"stats/is_champion": 1.0}
        tracker.log_metrics(summary.get("run_id"), metrics)
    print(f"Statistics: {files[0]} (verdict reasons: {files[1].name})")
    return report


def ship_front(stats: SweepStatistics, tables: dict[str, list[dict[str, Any]]], finished: list[dict[str, Any]],
               report: StatsReport, sweep_dir: Path, names: list[str]) -> dict[str, Any] | None:
    """Computes the quality-cost-latency front, prints its "Ship candidates" block and writes
    ``front.json``; returns what was written (None when ``stats.front`` is off or it failed: the
    statistics already saved stand)."""
    from harness.console import console
    from harness.metrics.units import short_labels
    from harness.tracking.verdicts.leaderboard import short_labels_or_names

    try:
        front = stats.ship_front(tables, run_infos(finished), report)
    except (ValueError, ArithmeticError) as err:
        print(f"front not computed: {err}")
        return None
    if front is None:
        return None
    record = write_front(sweep_dir, front, names)
    primary = front.primary["name"]
    width = console().width
    print("\n".join(front_lines(record, short_labels_or_names([primary], short_labels)[primary], width)))
    return record


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


def print_brief_report(report: StatsReport, width: int | None = None) -> None:
    """One line per challenger (its primary metric's difference to the champion, CI, corrected p,
    winner, guards), as plain text that fits the console; the reasons are in stats_verdicts.csv."""
    from harness.console import console, plain_table, short_names
    from harness.metrics.units import short_labels
    from harness.tracking.verdicts.leaderboard import short_labels_or_names

    width = width or console().width
    short, _, keys = short_names([report.champion, *(c.name for c in report.result.challengers)])
    metrics = [m.spec for m in report.result.challengers[0].metrics] if report.result.challengers else []
    labels = short_labels_or_names([m.name for m in metrics], short_labels)
    primary = next((m.name for m in metrics if m.role == "primary"), metrics[0].name if metrics else "-")
    headers, rows = report.brief_rows(labels)
    for row in rows:
        row[0] = short.get(row[0], row[0])
    label = f" ({', '.join(keys)})" if keys else ""
    lines = [f"Champion{label}: {short[report.champion]}",
             f"Each challenger minus the champion on {labels.get(primary, primary)} (p corrected: "
             f"{report.result.correction}; a guard's ! = shown worse than the champion's)",
             *plain_table(headers, rows, [False, True, True, True, True, False, False, False], width, shrink=0)]
    print("\n".join(line[:width] for line in lines))
