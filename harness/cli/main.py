"""The ``harness`` console script: a subcommand (``compare``, ``annotate``) or a Hydra run/sweep."""

from __future__ import annotations

import importlib
import os
import sys

from harness.subcommands import SUBCOMMANDS


def cli() -> None:
    """Runs a subcommand, or Hydra's run/sweep; exits non-zero if any job failed (the tracking
    callback ends the command with the status, see :mod:`harness.tracking.callback`)."""
    command = sys.argv[1] if len(sys.argv) > 1 else None
    if command in ("--version", "-V"):
        from harness import __version__

        print(f"harness {__version__}")
        return
    if command in SUBCOMMANDS:
        # Imported on use: start-up stays light.
        sys.exit(importlib.import_module(SUBCOMMANDS[command][0]).main(sys.argv[2:]))
    # Model loading's own bars ("Loading weights") would interleave with the harness's progress.
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    from harness.cli.sweep import main
    from harness.config.secrets import RedactingStream

    # The console is one of the ways out: what Hydra, the leaderboard or a log handler prints is redacted.
    sys.stdout, sys.stderr = RedactingStream(sys.stdout), RedactingStream(sys.stderr)

    main()
