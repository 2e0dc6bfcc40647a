"""The context delta of a run or sweep on the console: the number with its n, its bootstrap
interval and its paired test, and a plain statement when n is too small to conclude anything."""

from __future__ import annotations

from typing import Any

PREFIX = "context_delta/"


def _figures(metrics: dict[str, Any]) -> dict[str, Any] | None:
    if metrics.get(f"{PREFIX}delta_pp") is None:
        return None
    return {key: metrics.get(f"{PREFIX}{key}") for key in ("delta_pp", "delta_pp_ci_low", "delta_pp_ci_high",
                                                           "mcnemar_p", "n_with_context", "n_no_context")}


def _excludes_zero(f: dict[str, Any]) -> bool:
    low, high = f["delta_pp_ci_low"], f["delta_pp_ci_high"]
    return low is not None and high is not None and (low > 0 or high < 0)


def run_line(name: str, f: dict[str, Any]) -> str:
    """``name: +12.5 pp, n=8, CI [+0.0, +37.5], McNemar p=1: not significant``."""
    n = int(min((v for v in (f["n_with_context"], f["n_no_context"]) if v is not None), default=0))
    ci = ("CI n/a" if f["delta_pp_ci_low"] is None
          else f"CI [{f['delta_pp_ci_low']:+.1f}, {f['delta_pp_ci_high']:+.1f}]")
    p = "McNemar p n/a" if f["mcnemar_p"] is None else f"McNemar p={f['mcnemar_p']:.3g}"
    verdict = "the interval excludes 0" if _excludes_zero(f) else "not significant"
    return f"{name}: {f['delta_pp']:+.1f} pp, n={n}, {ci}, {p}: {verdict}"


def sweep_lines(summaries: list[dict[str, Any]], brief: bool) -> list[str]:
    """One line for the sweep (``brief``) or one per run: the delta's n, interval, test and verdict."""
    runs = [(s.get("name") or "run", f) for s in summaries if (f := _figures(s.get("metrics") or {}))]
    if not runs:
        return []
    if not brief or len(runs) == 1:
        return ["Context delta (with minus without context, percentage points; bootstrap CI):",
                *(f"  {run_line(name, f)}" for name, f in runs)]
    counts = sorted({int(f["n_with_context"] or 0) for _, f in runs})
    n = f"n={counts[0]}" if len(counts) == 1 else f"n={counts[0]}-{counts[-1]}"
    shown = sum(_excludes_zero(f) for _, f in runs)
    ps = [f["mcnemar_p"] for _, f in runs if f["mcnemar_p"] is not None]
    smallest = f" (smallest McNemar p {min(ps):.3g})" if ps else ""
    verdict = ("too few questions to conclude" if not shown
               else "see report.console=full for which")
    return [f"ctx_delta: {n} questions a run; CI excludes 0 in {shown} of {len(runs)} runs{smallest}: "
            f"{verdict}."]
