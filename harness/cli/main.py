"""The ``harness`` console script: a subcommand (``compare``, ``annotate``, ``meta-eval``) or a Hydra run/sweep."""

from __future__ import annotations

import importlib
import sys

# Subcommand -> module whose ``main(argv) -> int`` runs it. Imported on use: start-up stays light.
SUBCOMMANDS = {
    "compare": "harness.cli.compare",
    "annotate": "harness.cli.annotate",
    "meta-eval": "harness.cli.meta_eval",
}


def cli() -> None:
    """Runs a subcommand, or Hydra's run/sweep; exits non-zero if any job failed."""
    command = sys.argv[1] if len(sys.argv) > 1 else None
    if command in SUBCOMMANDS:
        sys.exit(importlib.import_module(SUBCOMMANDS[command]).main(sys.argv[2:]))
    from harness.cli.sweep import main
    from harness.tracking.callback import FAILED_JOBS

    main()
    if FAILED_JOBS:
        sys.exit(1)
