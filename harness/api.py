"""The Python API: ``from harness.api import evaluate, sweep`` (defined in :mod:`harness.cli.api`).

An entry point beside ``python -m harness`` (:mod:`harness.__main__`): the only modules outside
:mod:`harness.cli` that import it.
"""

from harness.cli.api import Evaluation, Sweep, evaluate, sweep

__all__ = ["Evaluation", "Sweep", "evaluate", "sweep"]
