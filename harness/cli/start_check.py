"""The config a ``harness`` command or an API call would run, composed and checked before Hydra starts it.

Hydra instantiates the callbacks its config names (``hydra.callbacks``) and hands its logging
configs to ``logging.config.dictConfig`` as soon as it has composed the config, before any
callback of the harness sees it; a shared experiment could make either run foreign code. So the
harness's entry points compose the same config first, through Hydra's own config loader and
command-line parser, and refuse it (exit status 2) when it names a target outside the harness
and its declared plugins (:func:`harness.config.allowlist.refuse_to_start`); only then does
``hydra.main`` (or the API's Hydra) take over. The composed config also says which launcher the
command's sweep would use (:func:`harness.workers.runs_in_workers`).
"""

from __future__ import annotations

import os
from pathlib import Path

from omegaconf import DictConfig

from harness.config.allowlist import refuse_to_start


def check_command(argv: list[str], config_dir: Path, config_name: str = "config") -> DictConfig | None:
    """The config of ``harness ARGV`` (a sweep's without its swept values), checked; None where
    Hydra would report an error of its own (a bad argument or override: it reports it its way).

    Raises:
        SystemExit: status 2, the config names a target that may not run (said on stderr).
    """
    from hydra._internal.hydra import Hydra
    from hydra._internal.utils import create_automatic_config_search_path, get_args_parser
    from hydra.core.config_search_path import SearchPathQuery

    try:
        args = get_args_parser().parse_args(argv)
    except SystemExit:  # argparse's usage error: Hydra prints it
        return None
    # hydra.main's task is harness.cli.sweep's, in this module's folder: a relative --config-path is from there
    search_path = create_automatic_config_search_path(str(Path(__file__).with_name("sweep.py")), None,
                                                      args.config_path or str(config_dir))
    if args.config_dir is not None:  # as hydra.main adds --config-dir
        if not os.path.isdir(args.config_dir):
            return None
        search_path.prepend(provider="command-line", path=f"file://{os.path.abspath(args.config_dir)}",
                            anchor=SearchPathQuery(provider="schema"))
    return _checked(lambda: Hydra.create_main_hydra2(task_name="harness", config_search_path=search_path),
                    args.config_name or config_name, list(args.overrides))


def check_call(app, config_name: str, overrides: list[str]) -> DictConfig | None:
    """The config the API's Hydra (``app``) would run for ``overrides``, checked as :func:`check_command` checks."""
    return _compose_checked(app, config_name, overrides)


def _checked(create, config_name: str, overrides: list[str]) -> DictConfig | None:
    from hydra.core.global_hydra import GlobalHydra

    try:
        app = create()
    except Exception:  # noqa: BLE001 - Hydra reports it its way
        return None
    try:
        return _compose_checked(app, config_name, overrides)
    finally:
        GlobalHydra.instance().clear()  # hydra.main creates its own


def _compose_checked(app, config_name: str, overrides: list[str]) -> DictConfig | None:
    from hydra.types import RunMode

    from harness.config import stored

    try:
        # as a sweep's master config (its swept values left out; a single run has none), without
        # setting up logging: only Hydra's composition, which calls no target
        cfg = stored.load_configuration(app.config_loader, config_name, list(overrides), RunMode.MULTIRUN)
    except Exception:  # noqa: BLE001 - an override that does not compose: Hydra reports it its way
        return None
    refuse_to_start(cfg)
    return cfg
