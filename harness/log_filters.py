"""Which log records reach the console (``conf/hydra/job_logging/harness.yaml``)."""

from __future__ import annotations

import logging


class OwnOrWarning(logging.Filter):
    """Passes the records of the ``own`` loggers (and their children) at any level, and any
    other library's from WARNING up; the file handler, without this filter, keeps them all.

    Example:
        >>> keep = OwnOrWarning(own=["harness"])
        >>> keep.filter(logging.makeLogRecord({"name": "harness.stages", "levelno": logging.INFO}))
        True
        >>> keep.filter(logging.makeLogRecord({"name": "bm25s", "levelno": logging.DEBUG}))
        False
    """

    def __init__(self, own: list[str]) -> None:
        super().__init__()
        self.own = tuple(own)

    def filter(self, record: logging.LogRecord) -> bool:
        name = record.name
        return record.levelno >= logging.WARNING or any(name == o or name.startswith(f"{o}.") for o in self.own)
