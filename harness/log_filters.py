"""Which log records reach the console (``conf/hydra/job_logging/harness.yaml``)."""

from __future__ import annotations

import logging

# A record's ``extra`` flag: show this message on the console only the first time the process logs it.
CONSOLE_ONCE = "console_once"


# ``log.info(..., exc_info=True, extra=FILE_ONLY)``: a record (e.g. a traceback) for the job's log file only.
FILE_ONLY = {"file_only": True}


class OwnOrWarning(logging.Filter):
    """Passes the records of the ``own`` loggers (and their children) at any level, and any
    other library's from WARNING up, except records marked :data:`FILE_ONLY` and those of the
    ``file_only`` loggers; the file handler, without this filter, keeps them all.

    Example:
        >>> keep = OwnOrWarning(own=["harness"])
        >>> keep.filter(logging.makeLogRecord({"name": "harness.stages", "levelno": logging.INFO}))
        True
        >>> keep.filter(logging.makeLogRecord({"name": "bm25s", "levelno": logging.DEBUG}))
        False
        >>> keep.filter(logging.makeLogRecord({"name": "harness.x", "levelno": logging.INFO, **FILE_ONLY}))
        False
    """

    def __init__(self, own: list[str], file_only: list[str] = ()) -> None:
        super().__init__()
        self.own = tuple(own)
        self.file_only = tuple(file_only)  # loggers whose records never reach the console

    def filter(self, record: logging.LogRecord) -> bool:
        if getattr(record, "file_only", False) or record.name in self.file_only:
            return False
        name = record.name
        return record.levelno >= logging.WARNING or any(name == o or name.startswith(f"{o}.") for o in self.own)


class OnceWhenFlagged(logging.Filter):
    """Drops a record flagged ``extra={CONSOLE_ONCE: True}`` whose message this filter already
    passed in this process (e.g. a self-check read from the cache, identical in every job of a
    sweep; Hydra builds a new filter for each job, so the messages seen are the class's); the file
    handler, without this filter, keeps every job's line.

    Example:
        >>> record = lambda: logging.makeLogRecord({"msg": "doctest line", CONSOLE_ONCE: True})
        >>> OnceWhenFlagged().filter(record()), OnceWhenFlagged().filter(record())
        (True, False)
    """

    _seen: set[str] = set()

    def filter(self, record: logging.LogRecord) -> bool:
        if not getattr(record, CONSOLE_ONCE, False):
            return True
        message = record.getMessage()
        if message in self._seen:
            return False
        self._seen.add(message)
        return True
