"""``harness compare``: the sweep's paired significance report for runs already logged.

    harness compare CHAMPION CHALLENGER [CHALLENGER ...] [--experiment demo] [stats.test=wilcoxon ...]
    harness compare --experiment demo [stats.primary.name=retrieval/mrr ...]

Runs are run ids, short id prefixes or run names in the tracking store (the ``tracking`` config
group, i.e. ``$MLFLOW_TRACKING_URI`` or ``sqlite:///mlflow.db``; ``--tracking-uri`` to name another); names and prefixes are looked up in
``--experiment`` (else in the config's ``experiment_name``), and a name that several runs carry
is refused with their ids. Without run names, ``--experiment`` compares the newest finished run of
each configuration of that experiment with the champion. The statistics settings are those the
runs' sweep logged (``stats_settings.json``: primary metric, guards, test, correction, seed...),
so the sweep's own report is reproduced; ``stats.*`` arguments change them. Arguments that start
with ``stats``, ``report``, ``seed``, ``experiment`` or ``tracking`` are Hydra overrides of the root config (run
names such as ``chunker=recursive,retriever=bm25`` are not). The chosen run ids are printed; the
report is printed and logged as a new run (tag ``harness.role=comparison``) in the champion's
experiment. Question sets that differ are refused, naming the ids.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
from pathlib import Path

from hydra.errors import HydraException

from harness.cli.compose import add_tracking_argument, compose, tracker
from harness.results.table import read_table
from harness.stats.paired import MisalignedError
from harness.tracking.base import ReportRun, RunRef
from harness.tracking.verdicts.statistics import STATS_SETTINGS, print_report, write_stats_report

_OVERRIDE = re.compile(r"^[+~]?(stats|report|seed|experiment|experiment_name|tracking)([.=]|$)")


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="harness compare", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("runs", nargs="*", help="champion, then challengers (run ids, id prefixes or names)")
    parser.add_argument("--experiment", help="where names are looked up; alone: compare every finished run of it")
    add_tracking_argument(parser)
    args = parser.parse_args(argv)
    overrides = [a for a in args.runs if _OVERRIDE.match(a)]
    refs = [a for a in args.runs if not _OVERRIDE.match(a)]
    if not (refs or args.experiment) or len(refs) == 1:
        parser.error("give two or more runs (champion first), or --experiment NAME")

    try:
        cfg = compose(overrides, args.tracking_uri)
    except (ValueError, HydraException) as err:
        print(f"harness compare: {err}", file=sys.stderr)
        return 2
    experiment = args.experiment or cfg.experiment_name
    store = tracker(cfg)
    try:
        runs = [store.resolve_run(r, experiment) for r in refs] if refs else store.finished_runs(experiment)
        settings, sweep_run = store.fetch_sweep_file(runs, STATS_SETTINGS)
    except LookupError as err:
        print(f"harness compare: {err}", file=sys.stderr)
        return 2
    names = _unique_names(runs)
    stats = _stats(cfg, json.loads(settings) if settings else None, overrides,
                   champion=names[runs[0].run_id] if refs else None)
    print(f"Comparing {len(runs)} runs ({'champion first, ' if refs else ''}statistics settings "
          f"{f'of sweep run {sweep_run}' if sweep_run else 'from conf/stats (no sweep of theirs logged any)'}):")
    for run in runs:
        print(f"  {run.run_id}  {names[run.run_id]}")
    with tempfile.TemporaryDirectory() as tmp:
        try:
            tables = {names[run.run_id]: read_table(store.fetch_table(run, Path(tmp) / str(i)))
                      for i, run in enumerate(runs)}
        except LookupError as err:
            print(f"harness compare: {err}", file=sys.stderr)
            return 2
        try:
            report = stats.compare(tables)
        except MisalignedError as err:
            print(f"harness compare: refused, the runs were scored on different questions:\n{err}", file=sys.stderr)
            return 2
        except ValueError as err:
            print(f"harness compare: {err}", file=sys.stderr)
            return 2
        champion = next(r for r in runs if names[r.run_id] == report.champion)
        print(f"champion: {report.champion} (run {champion.run_id})")
        print_report(report)
        out = Path(tmp) / "report"
        out.mkdir()
        write_stats_report(report, out)
        logged = store.log_report(ReportRun(
            name=f"compare: {len(runs) - 1} vs {report.champion}", role="comparison", folder=out,
            tags={"harness.champion_run": champion.run_id, "harness.compared_runs": " ".join(r.run_id for r in runs),
                  **({"harness.stats_settings_from": sweep_run} if sweep_run else {})},
            experiment_id=champion.experiment_id))
    print(f"Logged as run {logged.run_id} in experiment {logged.experiment_id}")
    return 0


def _unique_names(runs: list[RunRef]) -> dict[str, str]:
    counts: dict[str, int] = {}
    for run in runs:
        counts[run.name] = counts.get(run.name, 0) + 1
    return {run.run_id: run.name if counts[run.name] == 1 else f"{run.name} [{run.run_id[:8]}]" for run in runs}


def _stats(cfg, logged: dict | None, overrides: list[str], champion: str | None):
    """The stats group with the sweep's logged settings under the command line's ``stats.*``
    overrides; ``champion`` (the first named run) wins over both."""
    from hydra.utils import instantiate
    from omegaconf import OmegaConf

    given = [re.split(r"[=]", o.lstrip("+~"), maxsplit=1)[0] for o in overrides]
    if logged:  # sweeps logged before the guards' tolerance was named margin (one name for one idea)
        logged = {**logged, "guards": [{("margin" if k == "tolerance" else k): v for k, v in guard.items()}
                                       for guard in logged.get("guards", [])]}
    if logged and "stats" not in given:
        patch: dict = {}
        for key, value in _flat(logged):
            full = f"stats.{key}"
            if not any(g == full or g.startswith(f"{full}.") or full.startswith(f"{g}.") for g in given):
                head, _, tail = key.partition(".")
                if tail:
                    patch.setdefault(head, {})[tail] = value
                else:
                    patch[head] = value
        cfg.stats = OmegaConf.merge(cfg.stats, patch)  # validated against the stats schema
    if champion is not None:
        cfg.stats.champion = champion
    stats = instantiate(cfg.stats)
    if not stats.enabled:
        raise SystemExit("harness compare: stats=none selected; nothing to compare")
    return stats


def _flat(settings: dict) -> list[tuple[str, object]]:
    """``{"primary": {"name": x}, "guards": [...]}`` -> ``[("primary.name", x), ("guards", [...])]``."""
    return [(f"{key}.{sub}" if isinstance(value, dict) else key, item)
            for key, value in settings.items()
            for sub, item in (value.items() if isinstance(value, dict) else [(None, value)])]
