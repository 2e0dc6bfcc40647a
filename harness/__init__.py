"""harness: a declarative, config-driven benchmark harness for retrieval-augmented generation.

``from harness import evaluate, sweep`` is the Python API (:mod:`harness.cli.api`), imported on first
use so that ``import harness`` and the console script start fast.
"""

__version__ = "0.1.0"
__all__ = ["evaluate", "sweep", "__version__"]


def __getattr__(name: str):
    if name in ("evaluate", "sweep"):
        from harness.cli import api

        return getattr(api, name)
    raise AttributeError(f"module 'harness' has no attribute {name!r}")
