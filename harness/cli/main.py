"""The ``harness`` console script: a subcommand (``compare``, ``annotate``) or a Hydra run/sweep."""

from __future__ import annotations

import importlib
import logging
import os
import sys

from harness.cli.subcommands import SUBCOMMANDS, register_help_resolver


def cli() -> None:
    """Runs a subcommand, or Hydra's run/sweep; exits non-zero if any job failed (the tracking
    callback ends the command with the status, see :mod:`harness.tracking.sweep.callback`)."""
    command = sys.argv[1] if len(sys.argv) > 1 else None
    if command in ("--version", "-V"):
        from harness import __version__

        print(f"harness {__version__}")
        return
    if command in SUBCOMMANDS:
        # Imported on use: start-up stays light.
        try:
            sys.exit(importlib.import_module(SUBCOMMANDS[command][0]).main(sys.argv[2:]))
        except ConnectionError as err:  # the tracking server is unreachable (harness.tracking.mlflow.store.probe)
            print(f"harness {command}: {err}", file=sys.stderr)
            sys.exit(2)
    # Model loading's own bars ("Loading weights") would interleave with the harness's progress.
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    from harness.tracking.sweep.interruption import allow_signals, stop_on_signals

    stop_on_signals()
    try:
        from harness.cli.sweep import main
        from harness.config.secrets import RedactingStream

        # The console is one of the ways out: what Hydra, the leaderboard or a log handler prints is redacted.
        sys.stdout, sys.stderr = RedactingStream(sys.stdout), RedactingStream(sys.stderr)

        sys.argv[1:] = _resume_folder(sys.argv[1:])
        register_help_resolver()
        if ("--help" in sys.argv[1:] or "-h" in sys.argv[1:]) and "--hydra-help" not in sys.argv[1:]:
            _print_help_page(sys.argv[1:])
        _check_before_hydra(sys.argv[1:])
        try:
            main()
            status = 0
        except SystemExit as done:  # the callback's exit status (harness.tracking.sweep.callback), or Hydra's
            status = done.code
        allow_signals()  # a signal held until the end still ends the process as stopped
    except KeyboardInterrupt as stop:  # SIGINT, or SIGTERM (see stop_on_signals)
        # Stopped: the open runs are closed; nothing else is waited for (a worker's job in progress).
        _exit_now(_stopped(stop), finalise=False)
    _exit_now(status)


# Hydra's flags that print something and end, running no job.
_NO_JOBS = {"--help", "-h", "--hydra-help", "--cfg", "-c", "--info", "-i", "--resolve", "--shell-completion", "-sc"}


def _check_before_hydra(argv: list[str]) -> None:
    """Composes the command's config and refuses it (exit status 2) where it names code that may not
    run (:mod:`harness.cli.start_check`); for a sweep the harness launcher runs (the composed
    launcher: an experiment may choose another), starts its first worker now, so that the worker's
    imports overlap Hydra's start of the sweep."""
    from harness.cli.start_check import check_command
    from harness.cli.sweep import CONFIG_DIR
    from harness.workers import runs_in_workers, shared_pool

    cfg = check_command(argv, CONFIG_DIR)
    if cfg is not None and not _NO_JOBS.intersection(argv) and runs_in_workers(cfg, "-m" in argv or "--multirun" in argv):
        shared_pool().prestart()


def _exit_now(status: int | str | None, finalise: bool = True) -> None:
    """Ends the process once everything is written, skipping the interpreter's teardown of every
    module and object (~2 s after a cached re-run, ~20 s with models loaded on a busy machine).

    With ``finalise`` the first two steps of the interpreter's own finalisation still run, in its
    order: threads are joined and threading's exit hooks run (concurrent.futures and joblib's loky
    stop their worker processes there), then the atexit handlers (logging, MLflow, Ray,
    multiprocessing). Skipping the first leaves multiprocessing's handler waiting for workers that
    were never told to stop.
    """
    import atexit
    import threading

    if isinstance(status, str):  # SystemExit("message"): printed, status 1, as the interpreter would
        print(status, file=sys.stderr)
        status = 1
    if finalise:
        threading._shutdown()
        atexit._run_exitfuncs()
    logging.shutdown()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(status or 0)


def _print_help_page(argv: list[str]) -> None:
    """``harness --help`` from the composed ``hydra/help`` template (:mod:`harness.cli.help_page`),
    then exit; Hydra's own help where the template needs it or the overrides do not compose."""
    from harness.cli.help_page import help_page
    from harness.cli.sweep import CONFIG_DIR

    overrides = [arg for arg in argv if not arg.startswith("-")]
    try:
        page = help_page(str(CONFIG_DIR), overrides)
    except Exception:  # noqa: BLE001 - Hydra's own help reports a bad override its way
        return
    if page is not None:
        print(page)
        _exit_now(0)


def _resume_folder(argv: list[str]) -> list[str]:
    """``+resume=<parent run id>`` as ``+resume=<its sweep folder>``; exit 2 if it names neither."""
    from harness.cli.resume_target import resume_folder_arguments

    try:
        return resume_folder_arguments(argv)
    except LookupError as err:
        print(f"harness: sweep not started, it cannot be resumed:\n{err}", file=sys.stderr)
        sys.exit(2)


def _stopped(stop: KeyboardInterrupt) -> int:
    """Closes the open runs as KILLED and says so in one line; the exit status for the signal."""
    from harness.tracking.sweep.interruption import OPEN, close_open_runs, exit_code

    name, status = exit_code(stop)
    killed = close_open_runs(name)
    from harness.ray_cluster import stop_started_cluster

    stop_started_cluster()  # the exit hooks that would stop it are skipped
    resume = f"; finished jobs are kept, resume with: harness -m <same arguments> +resume={OPEN.sweep_dir}" \
        if OPEN.sweep_dir else ""
    print(f"harness: stopped by {name}, {killed} run(s) marked KILLED{resume}", file=sys.stderr)
    return status
