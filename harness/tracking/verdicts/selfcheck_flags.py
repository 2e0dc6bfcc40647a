"""Which reported columns come from a judge that failed its self-check, and the report's warning.

A run says so in its metrics: ``judge/<column>_selfcheck_passed`` = 0 for a rubric whose judge
could not tell right from wrong answers (:mod:`harness.judges.selfcheck`), and
``context_delta/selfcheck_passed`` = 0 when the context delta was scored by such a rubric.
"""

from __future__ import annotations

from typing import Any

SUFFIX = "selfcheck_passed"
MARK = " (!)"


def failed_prefixes(metrics: dict[str, Any]) -> list[str]:
    """The column prefixes a run flags, e.g. ``judge/answer_score`` and ``context_delta/``."""
    prefixes = []
    for key, value in metrics.items():
        if not key.endswith(SUFFIX) or value is None or value != 0:
            continue
        head = key[:-len(SUFFIX)]
        if head.endswith("_"):                      # judge/<column>_selfcheck_passed
            prefixes.append(head[:-1])
        elif head.endswith("/") and head != "judge/":  # context_delta/selfcheck_passed
            prefixes.append(head)
    return prefixes


def flagged(column: str, summaries: list[dict[str, Any]]) -> bool:
    """Whether any job's metrics flag ``column``."""
    return any(column.startswith(prefix) for summary in summaries
               for prefix in failed_prefixes(summary.get("metrics") or {}))


def threshold_notes(summaries: list[dict[str, Any]]) -> list[str]:
    """One line per judge column with an accuracy flag: the threshold each run applied, and
    whether its own self-check measured it (``accuracy_threshold: auto``) or the rubric fixed it."""
    found: dict[str, list[tuple[float, bool]]] = {}
    for summary in summaries:
        metrics = summary.get("metrics") or {}
        for key, value in metrics.items():
            if key.startswith("judge/") and key.endswith("_threshold") and not key.endswith("_selfcheck_threshold") \
                    and key != "judge/selfcheck_threshold" and value is not None:
                found.setdefault(key.removesuffix("_threshold"), []).append(
                    (float(value), bool(metrics.get(f"{key}_auto"))))
    lines = []
    for column, applied in found.items():
        values = sorted({float(f"{v:.4g}") for v, _ in applied})  # 4 significant digits: 0.09635
        shown = f"{values[0]:g}" if len(values) == 1 else f"{values[0]:g} to {values[-1]:g} across runs"
        how = ("threshold auto: each run's self-check, Youden's J" if all(a for _, a in applied)
               else "fixed by the rubric" if not any(a for _, a in applied) else "fixed or measured, per run")
        lines.append(f"{column}_accurate: score >= {shown}, {how}.")
    return lines


def warnings(summaries: list[dict[str, Any]]) -> list[str]:
    """One line per flagged judge column family (and the context delta), for the end-of-sweep report."""
    lines: dict[str, str] = {}
    for summary in summaries:
        metrics = summary.get("metrics") or {}
        for prefix in failed_prefixes(metrics):
            if prefix in lines:
                continue
            if prefix.startswith("judge/"):
                auc, n = metrics.get(f"{prefix}_selfcheck_auc"), metrics.get(f"{prefix}_selfcheck_n")
                lines[prefix] = (f"{prefix}{MARK}: the judge could not tell right from wrong answers on this "
                                 f"dataset (self-check AUC {auc:.2f} over {int(n)} pairs); its scores are not "
                                 f"evidence.")
            else:
                lines[prefix] = (f"{prefix.rstrip('/')}{MARK}: scored by a judge that failed its self-check on "
                                 f"this dataset; the delta is not evidence.")
    return list(lines.values())
