"""harness: a declarative, config-driven benchmark harness for retrieval-augmented generation.

The command is ``harness`` (:mod:`harness.cli.main`); the Python API is ``from harness.api import
evaluate, sweep`` (:mod:`harness.api`). This module imports nothing from the package, so that every
``import harness.<module>`` stays light.
"""

import os

# The harness runs offline: MLflow 3 sends usage telemetry from every process that imports it (and
# from the judges it builds) unless told not to. Set here, before any part can import MLflow, so the
# command, the Python API, launcher workers and the servers a process starts inherit it; a user who
# wants MLflow's telemetry sets MLFLOW_DISABLE_TELEMETRY=false.
os.environ.setdefault("MLFLOW_DISABLE_TELEMETRY", "true")

__version__ = "0.1.0"
__all__ = ["__version__"]
