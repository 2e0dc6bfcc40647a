"""The composed config of a subcommand, and the tracker it reads and writes runs through.

Subcommands compose the same root config as a sweep (``conf/config.yaml``), so their store is the
``tracking`` group's (``tracking.tracking_uri``, which defaults to ``$MLFLOW_TRACKING_URI``, then
``sqlite:///mlflow.db``); ``--tracking-uri`` is a shortcut for ``tracking.tracking_uri=...``.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from omegaconf import DictConfig


def compose(overrides: list[str], tracking_uri: str | None = None) -> DictConfig:
    """The root config with ``overrides`` (and the store, when given), its targets and secrets checked."""
    from hydra import initialize_config_dir

    from harness.config import register, stored
    from harness.config.checks import check_config
    from harness.config.resolvers import PROJECT_ROOT

    overrides = list(overrides)
    if tracking_uri is not None:
        chosen = [o.split("=", 1)[1] for o in overrides if o.startswith("tracking=")]
        if chosen and chosen[-1] != "mlflow":
            raise ValueError(f"--tracking-uri names an MLflow store, but tracking={chosen[-1]} was chosen")
        overrides += [*([] if chosen else ["tracking=mlflow"]), f"tracking.tracking_uri='{tracking_uri}'"]
    register()
    with initialize_config_dir(version_base="1.3", config_dir=str(PROJECT_ROOT / "conf")):
        cfg = stored.compose("config", overrides)
    check_config(cfg)
    return cfg


def parse_with_overrides(parser: argparse.ArgumentParser, argv: list[str], pattern) -> tuple[argparse.Namespace, list[str]]:
    """Parses ``argv``; the arguments ``pattern`` matches (Hydra overrides such as
    ``meta_eval.bootstrap.resamples=50``), wherever they stand, are returned apart and removed
    from ``args.runs``; any other unknown argument is a usage error."""
    args, extra = parser.parse_known_args(argv)
    unknown = [a for a in extra if not pattern.match(a)]
    if unknown:
        parser.error(f"unrecognized arguments: {' '.join(unknown)}")
    overrides = [a for a in [*args.runs, *extra] if pattern.match(a)]
    args.runs = [a for a in args.runs if not pattern.match(a)]
    return args, overrides


def tracker(cfg: DictConfig):
    """The configured tracker (:class:`harness.tracking.base.Tracker`)."""
    from hydra.utils import instantiate

    return instantiate(cfg.tracking)


def add_tracking_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--tracking-uri", default=None,
                        help="the store to read and log runs (default: tracking.tracking_uri of the config, "
                             "i.e. $MLFLOW_TRACKING_URI, else sqlite:///mlflow.db)")


def run_table(ref: str, tracker, folder: Path):
    """The per-question table of ``ref`` (a run folder, or a run id or name in the tracker) as a
    :class:`~harness.human.table.RunTable`."""
    from harness.human.table import read_run_table
    from harness.tracking.runs import open_run_table

    folder.mkdir(parents=True, exist_ok=True)
    path, run = open_run_table(ref, tracker, folder)
    if run is None:
        return read_run_table(path, name=ref)
    return read_run_table(path, name=run.name, run_id=run.run_id, experiment_id=run.experiment_id)


LABELS_HELP = ("human labels: a JSONL file, or mlflow:NAME[,NAME...] for the feedback named NAME that people gave "
               "on the run's traces in MLflow (on run B's for two runs)")


def labels_source(spec: str, tables: list, store):
    """What ``--labels`` names: a labels file, or (``mlflow:NAME[,NAME...]``) people's feedback of
    those names on the last run's traces, read through ``store``
    (:class:`~harness.metaeval.labels.FeedbackLabels`)."""
    from harness.tracking.base import RunRef
    from harness.tracking.mlflow.labels import PREFIX

    if not spec.startswith(PREFIX) or Path(spec).is_file():
        return Path(spec)
    names = [name.strip() for name in spec[len(PREFIX):].split(",")]
    if not all(names):
        raise ValueError(f"--labels {spec}: name the feedback to read, e.g. --labels {PREFIX}quality")
    table = tables[-1]
    if table.run_id is None:
        raise ValueError(f"--labels {spec} reads people's feedback on a run's traces in MLflow, but the run was read "
                         f"from a folder ({table.path}); give the run's id or name in MLflow")
    return store.human_feedback(RunRef(run_id=table.run_id, name=table.name, experiment_id=table.experiment_id),
                                names)


def log_or_keep(command: str, store, log: Callable[[], Any], report, out_dir: Path | None, fallback: str) -> int:
    """Runs ``log()`` (which logs ``report`` through ``store``) and says where the run went; if
    tracking fails, the computed report is kept on disk (``out_dir``, else ``fallback``): status 1."""
    try:
        logged = log()
    except Exception as err:
        kept = out_dir or Path(fallback)
        report.write(kept)
        print(f"harness {command}: logging to {store.describe()} failed ({err!r}); the report files are in {kept}",
              file=sys.stderr)
        return 1
    files = f"; report files: {out_dir}" if out_dir else ""
    if logged is None:
        print(f"Nothing logged ({store.describe()}){files}")
    else:
        role = logged.tags.get("harness.role")
        print(f"Logged as run {logged.run_id} (tag harness.role={role}) in experiment {logged.experiment_id}{files}")
    return 0
