"""``harness reproduce``: re-run a logged run and diff its metrics against the original.

    harness reproduce RUN [--tracking-uri sqlite:///mlflow.db] [OVERRIDE ...]

RUN is an MLflow run id or name: a single run, or one job of a sweep (that configuration alone is
re-run, whatever mode its experiment preset sets). The run's logged ``config.yaml`` holds the
overrides it was composed with; they are composed again (plus any OVERRIDE given here, e.g.
``cache.enabled=false`` or ``hydra.run.dir=...``) and run through the Python API, i.e. the same
task and tracking as ``harness``, into the same MLflow store. The new run is tagged
``harness.reproduces=<run id>`` and named as the original. Prints every metric of the original
beside the new value and their difference, then where the new run's config differs from the
logged one. Exit status 0 when every metric is equal (within ``--tolerance``) but timings and
cache counts (how the run went, not what it found: a re-run reads the original's answers from the
cache), 1 when one differs, 2 when the run cannot be found or re-run.
"""

from __future__ import annotations

import argparse
import math
import sys

from omegaconf import OmegaConf

from harness.cli.compose import add_tracking_argument, compose, tracker
from harness.tracking.naming import flatten, metric_name

CONFIG = "config.yaml"
RUN_NAME_TAG = "mlflow.runName"  # MLflow renames a run whose tag this is set


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="harness reproduce", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("run", help="MLflow run id or name")
    parser.add_argument("overrides", nargs="*", help="extra Hydra overrides for the re-run")
    add_tracking_argument(parser)
    parser.add_argument("--tolerance", type=float, default=0.0, help="largest |difference| counted as equal")
    args = parser.parse_intermixed_args(argv)

    cfg = compose([], args.tracking_uri)
    store = tracker(cfg)
    try:
        original = store.resolve_run(args.run)
        logged = _logged_config(store, original)
        original_metrics = store.run_metrics(original)
    except LookupError as err:
        print(f"harness reproduce: {err}", file=sys.stderr)
        return 2
    overrides = [o for o in logged["hydra"]["overrides"]["task"] if not o.startswith("tracking.tracking_uri=")]
    # The re-run goes to the store the original was read from; it is one run even when the run was
    # one job of a sweep whose experiment preset sets hydra.mode=MULTIRUN (make run's demo_sweep).
    overrides += [f"tracking.tracking_uri='{cfg.tracking.tracking_uri}'", "hydra.mode=RUN", *args.overrides]
    print(f"Reproducing run {original.run_id} ({original.name}) with: {' '.join(overrides)}")

    from harness.cli.api import evaluate

    try:
        result = evaluate(overrides)
    except (RuntimeError, ValueError) as err:
        print(f"harness reproduce: {err}", file=sys.stderr)
        return 2
    if result.run_id:
        # named as the original: a sweep's job is named by the keys its sweep varied, a single run by
        # all of its overrides, and the configuration is the same either way
        store.set_tags(result.run_id, {"harness.reproduces": original.run_id, RUN_NAME_TAG: original.name})
    differing = print_diff(original_metrics, result.metrics, args.tolerance)
    drift = config_drift(logged, _logged_config(store, store.resolve_run(result.run_id))) if result.run_id else []
    print("Config: identical to the logged one" if not drift else
          "Config differs from the logged one at: " + ", ".join(drift))
    print(f"New run: {result.run_id} (output: {result.output_dir})")
    return 1 if differing else 0


def print_diff(original: dict[str, float], new: dict[str, float], tolerance: float) -> list[str]:
    """Prints original, reproduced and difference per metric; returns the metrics (timings and cache
    counts aside) that differ by more than ``tolerance`` (a metric missing on either side differs)."""
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    table = Table(title="Original vs reproduced")
    for column in ("metric", "original", "reproduced", "difference"):
        table.add_column(column, justify="left" if column == "metric" else "right")
    differing = []
    for key in sorted(new):
        before, after = original.get(metric_name(key)), new[key]
        diff = None if before is None or after is None else after - before
        same = diff is not None and (abs(diff) <= tolerance or (math.isnan(diff) and _both_nan(before, after)))
        if _is_timing(key):
            label = " (cache)" if _is_cache_count(key) else " (timing)"
        else:
            label = "" if same else " *"
            if not same:
                differing.append(key)
        table.add_row(escape(key + label), _cell(before), _cell(after), _cell(diff))
    Console().print(table)
    checked = sum(not _is_timing(k) for k in new)
    print(f"{checked - len(differing)} of {checked} metrics identical"
          + (f" (tolerance {tolerance})" if tolerance else "")
          + (f"; differing: {', '.join(differing)}" if differing else ""))
    return differing


def config_drift(logged: dict, new: dict) -> list[str]:
    """Keys of the resolved configs (hydra block and tracking URI aside) whose values differ."""
    def flat(config: dict) -> dict:
        values = flatten({k: v for k, v in config.items() if k != "hydra"})
        values.pop("tracking.tracking_uri", None)
        return values

    before, after = flat(logged), flat(new)
    return sorted(k for k in before.keys() | after.keys() if before.get(k) != after.get(k))


def _logged_config(store, run) -> dict:
    text = store.fetch_config(run)
    if text is None:
        raise LookupError(f"run {run.run_id} has no {CONFIG} artifact")
    config = OmegaConf.to_container(OmegaConf.create(text))
    if not (config.get("hydra") or {}).get("overrides"):
        raise LookupError(f"run {run.run_id}'s {CONFIG} has no hydra.overrides (logged by an older harness)")
    return config


def _is_timing(key: str) -> bool:
    """How the run went rather than what it found: a time, or how much came from the cache."""
    return "seconds" in key or "per_second" in key or _is_cache_count(key)


def _is_cache_count(key: str) -> bool:
    return "cache" in key.rsplit("/", 1)[-1]


def _both_nan(a: float, b: float) -> bool:
    return math.isnan(a) and math.isnan(b)


def _cell(value: float | None) -> str:
    return "-" if value is None else f"{value:.6g}"
