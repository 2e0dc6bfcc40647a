"""A sweep's job keeps the run it opened in its folder before anything is logged into it; re-run
by a resumed sweep, it logs into that run again unless the run was logged (or the store lacks it)."""

from __future__ import annotations

from mlflow.tracking import MlflowClient

from harness.tracking.mlflow.tracker import MLflowTracker
from harness.tracking.outcome import JobInfo
from harness.tracking.sweep import state as sweep
from harness.tracking.sweep.callback import open_job_run


def _info(folder) -> JobInfo:
    return JobInfo(name="retriever=bm25", choices={"retriever": "bm25"}, overrides=["retriever=bm25"], params={},
                   config_yaml="retriever: {}\n", tags={"harness.output_dir": str(folder)})


def test_a_job_keeps_its_run_and_a_resumed_job_reopens_it_unless_it_was_logged(tmp_path):
    uri = f"sqlite:///{tmp_path / 'mlflow.db'}"
    tracker = MLflowTracker(uri, "runs", artifact_location=str(tmp_path / "mlruns"))
    root, folder = tmp_path / "sweep", tmp_path / "sweep" / "0"
    state = sweep.start_sweep(root)
    state["parent_run_id"] = tracker.start_sweep("sweep", {"harness.role": "sweep"})
    client = MlflowClient(uri)

    opened = open_job_run(tracker, _info(folder), state, folder)
    assert sweep.job_run(folder, state["sweep_id"]) == opened and client.get_run(opened).info.status == "RUNNING"
    assert sweep.job_run(folder, "another sweep") is None

    tracker.mark_killed([opened], "SIGTERM")  # the sweep was stopped; resumed, the job runs again
    assert open_job_run(tracker, _info(folder), state, folder) == opened
    reopened = client.get_run(opened)
    assert reopened.info.status == "RUNNING" and reopened.data.tags["harness.resumed"] == "true"

    sweep.write_job_summary(folder, {"sweep_id": state["sweep_id"], "status": "FAILED", "run_id": opened})
    again = open_job_run(tracker, _info(folder), state, folder)  # a logged (failed) run keeps what it holds
    assert again != opened and sweep.job_run(folder, state["sweep_id"]) == again

    elsewhere = MLflowTracker(f"sqlite:///{tmp_path / 'other.db'}", "runs", artifact_location=str(tmp_path / "m2"))
    sweep.write_job_summary(folder, {"sweep_id": state["sweep_id"], "status": "FAILED"})
    assert open_job_run(elsewhere, _info(folder), state, folder) not in (opened, again)  # a store without it
