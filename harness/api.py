"""The Python API: ``from harness.api import decide, evaluate, sweep, synth`` (defined in
:mod:`harness.stats.decide`, :mod:`harness.cli.api` and :mod:`harness.cli.synth`).

An entry point beside ``python -m harness`` (:mod:`harness.__main__`): the only modules outside
:mod:`harness.cli` that import it.
"""

from harness.cli.api import Evaluation, Sweep, evaluate, sweep
from harness.cli.synth import IncompleteSet, SyntheticSet, synth
from harness.stats.decide import Decision, decide

__all__ = ["Decision", "Evaluation", "IncompleteSet", "Sweep", "SyntheticSet", "decide", "evaluate", "sweep", "synth"]
