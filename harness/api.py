"""The Python API: ``from harness.api import evaluate, sweep, synth`` (defined in :mod:`harness.cli.api`
and :mod:`harness.cli.synth`).

An entry point beside ``python -m harness`` (:mod:`harness.__main__`): the only modules outside
:mod:`harness.cli` that import it.
"""

from harness.cli.api import Evaluation, Sweep, evaluate, sweep
from harness.cli.synth import IncompleteSet, SyntheticSet, synth

__all__ = ["Evaluation", "IncompleteSet", "Sweep", "SyntheticSet", "evaluate", "sweep", "synth"]
