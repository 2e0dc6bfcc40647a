"""The console filter of the job logging config: own lines at any level, others from WARNING."""

from __future__ import annotations

import logging

from harness.log_filters import OwnOrWarning


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
    assert list(logging_cfg.handlers.console.filters) == ["own_or_warning"]
    assert "filters" not in logging_cfg.handlers.file
    assert logging_cfg.filters.own_or_warning["()"] == "harness.log_filters.OwnOrWarning"
