"""Each run's description on its MLflow page (``mlflow.note.content``, Markdown): what it varied,
its verdict against the champion, its judge's self-check and its headline figures with units.

The verdict exists only once the sweep's statistics ran, so the descriptions are set at the
sweep's end (a single run gets its own, without a verdict, at its end).
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from harness.metrics.units import unit_of
from harness.tracking.base import Tracker
from harness.tracking.verdicts.selfcheck_flags import SUFFIX

if TYPE_CHECKING:  # annotations only: the statistics (scipy, statsmodels) load when a sweep is compared
    from harness.stats.sweep_report import StatsReport

log = logging.getLogger(__name__)

NOTE = "mlflow.note.content"  # the tag MLflow's UI shows as a run's description


def _value(name: str, value: Any) -> str:
    try:
        unit = f" ({unit_of(name).describe()})"
    except KeyError:
        unit = ""
    return f"{value:.4g}{unit}" if isinstance(value, (int, float)) else f"-{unit}"


def _verdict(name: str, report: StatsReport | None) -> str:
    if report is None:
        return "no comparison (statistics off, or fewer than two finished runs)"
    if name == report.champion:
        return f"**champion** of the sweep (best on {report.settings.get('primary', {}).get('name', 'the primary metric')})"
    challenger = next((c for c in report.result.challengers if c.name == name), None)
    if challenger is None:
        return "not compared"
    primary = next((m for m in challenger.metrics if m.spec.role == "primary"), challenger.metrics[0])
    ci = "" if primary.ci_low is None else f", {report.ci_label} [{primary.ci_low:+.4f}, {primary.ci_high:+.4f}]"
    p = "" if primary.p_corrected is None else f", p ({report.result.correction}) {primary.p_corrected:.3g}"
    difference = "n/a" if primary.mean_difference is None else f"{primary.mean_difference:+.4f}"
    verdict = (primary.verdict or "undecided").replace("_", "-")
    return (f"**{verdict}** at margin {primary.spec.margin:g} against the champion {report.champion}: "
            f"{primary.spec.name} {difference}{ci}{p}, n={primary.n}. {primary.decision.reason if primary.decision else ''}"
            f" Winner **{challenger.verdict.winner}**: {challenger.verdict.reason}")


def _selfchecks(metrics: dict[str, Any]) -> str:
    found = []
    for key, value in sorted(metrics.items()):
        if not (key.startswith("judge/") and key.endswith(f"_{SUFFIX}")) or value is None:
            continue
        column = key.removeprefix("judge/").removesuffix(f"_{SUFFIX}")
        auc, n = metrics.get(f"judge/{column}_selfcheck_auc"), metrics.get(f"judge/{column}_selfcheck_n")
        figures = f" (AUC {auc:.3f} over {int(n)} pairs)" if auc is not None and n is not None else ""
        found.append(f"{column} {'passed' if value else '**failed**: its scores are not evidence'}{figures}")
    return "; ".join(found) or "no judge self-check in this run"


def description(summary: dict[str, Any], headline: list[str], report: StatsReport | None) -> str:
    """The Markdown description of one job's run."""
    metrics = summary.get("metrics") or {}
    figures = "\n".join(f"- {name}: {_value(name, metrics.get(name))}" for name in headline if name in metrics)
    return (f"**Varied:** {summary.get('name')}\n\n**Verdict:** {_verdict(summary.get('name'), report)}\n\n"
            f"**Self-check:** {_selfchecks(metrics)}\n\n**Headline:**\n{figures}\n")


def describe_runs(tracker: Tracker, summaries: list[dict[str, Any]], headline: list[str],
                  report: StatsReport | None) -> None:
    """Sets every logged run's description; a failure is logged, never fatal (the run is recorded)."""
    for summary in summaries:
        if not summary.get("run_id"):
            continue
        try:
            tracker.set_tags(summary["run_id"], {NOTE: description(summary, headline, report)})
        except Exception:
            log.exception("could not set the description of run %s", summary["run_id"])
