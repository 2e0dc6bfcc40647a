"""``+resume=<parent run id>``: replaced by that sweep's folder before Hydra starts.

Hydra places the resumed sweep in the folder ``+resume`` names (``hydra.sweep.dir`` in
``conf/config.yaml``); a parent run id is turned into the folder its ``harness.sweep_dir`` tag
records, read through the store the command's own config names.
"""

from __future__ import annotations

from pathlib import Path

SWEEP_DIR_TAG = "harness.sweep_dir"


def resume_folder_arguments(argv: list[str]) -> list[str]:
    """``argv`` with a ``resume=`` value that is no existing folder replaced by its sweep's folder.

    Raises LookupError when the value names neither a folder nor a sweep's parent run.
    """
    resolved = list(argv)
    for index, argument in enumerate(argv):
        key, _, value = argument.partition("=")
        if key.lstrip("+") != "resume" or not value or Path(value).is_dir():
            continue
        resolved[index] = f"{key}={_sweep_folder(value, [a for a in argv if a is not argument])}"
    return resolved


def _sweep_folder(run_ref: str, argv: list[str]) -> str:
    from harness.cli.compose import compose, tracker

    run = tracker(compose(_plain_overrides(argv))).resolve_run(run_ref)
    folder = run.tags.get(SWEEP_DIR_TAG)
    if not folder:
        raise LookupError(f"run {run.run_id} ('{run.name}') is not a sweep's parent (no {SWEEP_DIR_TAG} tag)")
    return folder


def _plain_overrides(argv: list[str]) -> list[str]:
    """The overrides that compose one config: no flags, no Hydra keys, no sweeps (``a=x,y``)."""
    from hydra.core.override_parser.overrides_parser import OverridesParser

    candidates = [a for a in argv if "=" in a and not a.startswith("-") and not a.lstrip("+~").startswith("hydra")]
    parsed = OverridesParser.create().parse_overrides(candidates)
    return [o.input_line for o in parsed if not o.is_sweep_override()]
