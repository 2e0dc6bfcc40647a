"""harness: a declarative, config-driven benchmark harness for retrieval-augmented generation."""

__version__ = "0.1.0"
