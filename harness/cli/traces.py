"""``harness traces``: write the MLflow traces a run or a sweep's runs lack, from their own records.

    harness traces RUN_OR_SWEEP [--all | --questions ID [ID ...]] [tracking.<key>=<value> ...]

RUN_OR_SWEEP is a sweep's folder (``multirun/<date>/<time>-<token>``) or one run's folder
(``outputs/<date>/<time>``, a sweep's job folder). Without ``--all`` or ``--questions``, the
questions ``tracking.traces`` picks (what logging the run wrote, or should have); ``--all``: every
question of the per-question table; ``--questions``: those. A trace holds what an eagerly written
one holds (the job folder's ``stages.json`` and table), goes into the run that owns the question,
and is written once: running it again writes nothing twice. Prints how many traces it wrote per run.
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
    parser = argparse.ArgumentParser(prog="harness traces", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("folder", type=Path, help="a sweep's folder or one run's folder")
    which = parser.add_mutually_exclusive_group()
    which.add_argument("--all", action="store_true", help="every question of each run")
    which.add_argument("--questions", nargs="+", metavar="ID", help="these questions (by question id)")
    parser.add_argument("overrides", nargs="*", metavar="tracking.<key>=<value>",
                        help="e.g. tracking.tracking_uri=http://mlflow-host:5000")
    overrides = [arg for arg in argv if "=" in arg and not arg.startswith("-")]
    args = parser.parse_args([arg for arg in argv if arg not in overrides])
    wrong = [o for o in overrides if not o.startswith("tracking.")]
    if wrong:
        parser.error(f"only tracking.<key>=<value> overrides are accepted, got {' '.join(wrong)}")
    from harness.tracking.sweep.on_demand import RunTraces, runs_of

    try:
        config_file, runs = runs_of(args.folder)
    except FileNotFoundError as err:
        print(f"harness traces: {err}", file=sys.stderr)
        return 2
    register()
    cfg = OmegaConf.merge(OmegaConf.load(config_file), OmegaConf.from_dotlist(overrides))
    try:
        check_targets(cfg)
        tracker = instantiate(cfg.tracking)
        tracker.check()
        report = RunTraces(tracker).write(runs, None if not args.all and not args.questions
                                          else ("all" if args.all else args.questions))
    except (FileNotFoundError, ConnectionError, ValueError, LookupError) as err:
        print(f"harness traces: {err}", file=sys.stderr)
        return 2
    except Exception as err:  # the store failed part-way: what was written stays, the rest waits
        print(f"harness traces: writing failed ({err}); run it again to write the rest", file=sys.stderr)
        return 1
    for line in report.lines():
        print(line)
    return 0
