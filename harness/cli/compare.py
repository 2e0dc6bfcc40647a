"""``harness compare``: the sweep's paired significance report for runs already in MLflow.

    harness compare CHAMPION CHALLENGER [CHALLENGER ...] [stats.test=wilcoxon ...]
    harness compare --experiment demo [stats.primary.name=retrieval/mrr ...]

Runs are MLflow run ids or run names. With ``--experiment`` every finished run that has a
per-question table is compared with the champion (``stats.champion``, or the best on the primary
metric). Arguments that start with ``stats``, ``report``, ``seed`` or ``experiment`` are Hydra
overrides of the root config (run names such as ``chunker=recursive,retriever=bm25`` are not).
The report is printed and logged as a new run (tag ``harness.role=comparison``) in the
champion's experiment. Question sets that differ are refused, naming the ids.
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
from pathlib import Path

from harness.config.resolvers import PROJECT_ROOT
from harness.results.table import read_table
from harness.stats.paired import MisalignedError
from harness.tracking.runs import client as mlflow_client
from harness.tracking.runs import download_table, experiment_runs, resolve_run
from harness.tracking.statistics import print_report, write_stats_report

_OVERRIDE = re.compile(r"^[+~]?(stats|report|seed|experiment)([.=]|$)")


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="harness compare", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("runs", nargs="*", help="champion, then challengers (run ids or names)")
    parser.add_argument("--experiment", help="compare every finished run of this experiment")
    parser.add_argument("--tracking-uri", default="sqlite:///mlflow.db")
    args = parser.parse_args(argv)
    overrides = [a for a in args.runs if _OVERRIDE.match(a)]
    refs = [a for a in args.runs if not _OVERRIDE.match(a)]
    if bool(args.experiment) == bool(refs) or (refs and len(refs) < 2):
        parser.error("give two or more runs (champion first), or --experiment NAME")

    client = mlflow_client(args.tracking_uri)
    try:
        runs = experiment_runs(client, args.experiment) if args.experiment else [resolve_run(client, r) for r in refs]
    except LookupError as err:
        print(f"harness compare: {err}", file=sys.stderr)
        return 2
    names = _unique_names(runs)
    if refs:
        overrides.append(f"stats.champion='{names[runs[0].info.run_id]}'")
    stats = _stats_from_config(overrides)
    with tempfile.TemporaryDirectory() as tmp:
        try:
            tables = {names[run.info.run_id]: read_table(download_table(client, run, Path(tmp))) for run in runs}
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
        print_report(report)
        out = Path(tmp) / "report"
        out.mkdir()
        write_stats_report(report, out)
        champion = next(r for r in runs if names[r.info.run_id] == report.champion)
        logged = client.create_run(champion.info.experiment_id, run_name=f"compare: {len(runs) - 1} vs {report.champion}",
                                   tags={"harness.role": "comparison", "harness.champion_run": champion.info.run_id,
                                         "harness.compared_runs": " ".join(r.info.run_id for r in runs)})
        client.log_artifacts(logged.info.run_id, str(out))
        client.set_terminated(logged.info.run_id)
    print(f"Logged as run {logged.info.run_id} in experiment {champion.info.experiment_id}")
    return 0


def _unique_names(runs: list) -> dict[str, str]:
    counts: dict[str, int] = {}
    for run in runs:
        counts[run.info.run_name] = counts.get(run.info.run_name, 0) + 1
    return {run.info.run_id: run.info.run_name if counts[run.info.run_name] == 1
            else f"{run.info.run_name} [{run.info.run_id[:8]}]" for run in runs}


def _stats_from_config(overrides: list[str]):
    from hydra import compose, initialize_config_dir
    from hydra.utils import instantiate

    from harness.config import register
    from harness.config.allowlist import check_targets

    register()
    with initialize_config_dir(version_base="1.3", config_dir=str(PROJECT_ROOT / "conf")):
        cfg = compose("config", overrides=overrides)
    check_targets(cfg)
    stats = instantiate(cfg.stats)
    if not stats.enabled:
        raise SystemExit("harness compare: stats=none selected; nothing to compare")
    return stats
