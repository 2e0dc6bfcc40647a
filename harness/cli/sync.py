"""``harness sync``: log a sweep's results that never reached the tracker (the server was down).

    harness sync SWEEP_FOLDER [tracking.tracking_uri=http://mlflow-host:5000]

Reads the sweep's own config (``multirun.yaml`` in its folder) for the tracker and the leaderboard
columns; ``tracking.*`` overrides point it elsewhere. Jobs already logged are left alone (they get
the traces their runs lack); a job that opened its run before the store went away is logged into
that run; a parent run the store does not have is made anew. Running it twice logs nothing twice.
It prints a line per run, what it did (created, completed, logged before) and how many metrics,
tables and traces it wrote, then a total line::

    created bm25-recursive: run 5f0c... FINISHED; 14 metrics, 1 table, 86 traces
    completed bm25-none: run 9a1e... FINISHED, was RUNNING; 14 metrics, 1 table, 86 traces
    logged before dense-none: run 77b2... FINISHED; 0 metrics, 0 tables, 0 traces
    Total: 3 run(s) under parent 0d4e... (1 created, 1 completed, 1 logged before); 28 metrics, 2 tables,
    172 traces written  (one line)
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from hydra.utils import instantiate
from omegaconf import OmegaConf

from harness.config import register
from harness.config.allowlist import check_targets


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="harness sync", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("sweep_dir", type=Path, help="the sweep's folder (multirun/<date>/<time>-<token>)")
    parser.add_argument("overrides", nargs="*", help="tracking.<key>=<value>, e.g. tracking.tracking_uri=...")
    args = parser.parse_args(argv)
    wrong = [o for o in args.overrides if not o.startswith("tracking.") or "=" not in o]
    if wrong:
        parser.error(f"only tracking.<key>=<value> overrides are accepted, got {' '.join(wrong)}")
    config_file = args.sweep_dir / "multirun.yaml"
    if not config_file.is_file():
        print(f"harness sync: {args.sweep_dir} is not a sweep folder (no multirun.yaml)", file=sys.stderr)
        return 2
    register()
    cfg = OmegaConf.merge(OmegaConf.load(config_file), OmegaConf.from_dotlist(args.overrides))
    from harness.tracking.sweep.sync import sync_sweep

    try:
        check_targets(cfg)
        tracker = instantiate(cfg.tracking)
        tracker.check()
        report = sync_sweep(args.sweep_dir, tracker, list(cfg.report.headline))
    except (FileNotFoundError, ConnectionError, ValueError) as err:
        print(f"harness sync: {err}", file=sys.stderr)
        return 2
    except Exception as err:  # the store failed part-way: what was logged is recorded, the rest waits
        print(f"harness sync: logging failed ({err!r}); run it again to log the rest", file=sys.stderr)
        return 1
    if report.parent_created:
        print(f"Parent run {report.parent_id} created (the store had no parent for this sweep)")
    for line in report.lines():  # a line per run (created, completed or logged before), then the total
        print(line)
    if report.sweep_end_logged:
        print("Logged the sweep's end (leaderboard, statistics files) and closed the parent run")
    return 0
