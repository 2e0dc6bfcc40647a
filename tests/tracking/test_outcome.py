"""A job's outcome: a failure keeps the innermost cause as its one-line message and the traceback."""

from __future__ import annotations

from harness.tracking.outcome import JobOutcome


def _raise_wrapped():
    try:
        raise FileNotFoundError("predictions file not found: preds.jsonl")
    except FileNotFoundError as err:
        raise RuntimeError("Error in call to target 'harness.generators.predictions.PredictionsGenerator'") from err


def test_a_failure_names_its_root_cause_and_keeps_the_whole_traceback(tmp_path):
    try:
        _raise_wrapped()
    except RuntimeError as err:
        outcome = JobOutcome.from_exception(err, tmp_path)
    assert outcome.failed and outcome.status == "FAILED" and outcome.result is None
    assert outcome.message == "FileNotFoundError: predictions file not found: preds.jsonl"
    assert "Traceback" in outcome.error and "_raise_wrapped" in outcome.error
    assert "RuntimeError: Error in call to target" in outcome.error  # the wrapper stays in the traceback


def test_a_finished_outcome_is_not_failed(tmp_path):
    assert not JobOutcome(status="FINISHED", output_dir=tmp_path).failed
