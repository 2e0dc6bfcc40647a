"""The console filter of the job logging config: own lines at any level, others from WARNING."""

from __future__ import annotations

import logging

from harness.log_filters import CONSOLE_ONCE, OnceWhenFlagged, OwnOrWarning


def record(name: str, level: int) -> logging.LogRecord:
    return logging.makeLogRecord({"name": name, "levelno": level})


def test_other_libraries_reach_the_console_only_from_warning():
    keep = OwnOrWarning(own=["harness", "hydra"])
    assert keep.filter(record("harness.stages.pipeline", logging.INFO))
    assert keep.filter(record("hydra", logging.INFO))
    for name in ("bm25s", "absl", "httpx", "transformers.modeling_utils", "harnessx"):
        assert not keep.filter(record(name, logging.INFO)) and not keep.filter(record(name, logging.DEBUG))
        assert keep.filter(record(name, logging.WARNING))


def test_the_job_logging_config_filters_the_console_and_not_the_file(compose):
    logging_cfg = compose(return_hydra_config=True).hydra.job_logging
    assert list(logging_cfg.handlers.console.filters) == ["own_or_warning", "console_once"]
    assert "filters" not in logging_cfg.handlers.file
    assert logging_cfg.filters.own_or_warning["()"] == "harness.log_filters.OwnOrWarning"


def test_a_flagged_line_reaches_the_console_once_and_unflagged_lines_always():
    once = OnceWhenFlagged()

    def line(message: str, flagged: bool) -> logging.LogRecord:
        return logging.makeLogRecord({"msg": message, CONSOLE_ONCE: flagged})

    assert [once.filter(line("self-check: AUC 0.9", True)) for _ in range(2)] == [True, False]
    assert not OnceWhenFlagged().filter(line("self-check: AUC 0.9", True))  # the next job's filter too
    assert once.filter(line("self-check: AUC 0.8", True))  # a different result is said again
    assert all(once.filter(line("judge: 16 from the cache", False)) for _ in range(2))
