"""harness: a declarative, config-driven benchmark harness for retrieval-augmented generation.

The command is ``harness`` (:mod:`harness.cli.main`); the Python API is ``from harness.api import
evaluate, sweep`` (:mod:`harness.api`). This module imports nothing from the package, so that every
``import harness.<module>`` stays light.
"""

__version__ = "0.1.0"
__all__ = ["__version__"]
