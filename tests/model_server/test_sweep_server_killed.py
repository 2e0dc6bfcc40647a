"""A sweep whose model server dies between its jobs, run through the CLI against ``transformers
serve``. The server is killed (SIGKILL) as the first job's per-question table appears, so the second
job's questions fail with the connection error named, that job is FAILED and ``harness`` exits 1,
and the first job's results stay as they were; with the server back on the same port,
``+resume=<sweep folder>`` answers only what failed and the sweep ends complete."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

import pytest

from harness.serving import free_port, start
from tests.conftest import TINY_DATASET_OVERRIDES
from tests.e2e.test_sweep import run_cli, runs_of, split

pytestmark = pytest.mark.slow


def summaries(sweep: Path) -> dict[str, dict]:
    """Each job folder's ``summary.json`` by the folder's name (the job number)."""
    return {path.parent.name: json.loads(path.read_text()) for path in sweep.glob("*/summary.json")}


def answered_rows(job: Path) -> list[dict]:
    """The job's per-question rows of the questions sent to the generator (``generation.sample``)."""
    rows = [json.loads(line) for line in (job / "per_question.jsonl").read_text().splitlines()]
    return [row for row in rows if "answer" in row]


def kill_after_the_first_job(server, sweep: Path, stop: threading.Event) -> None:
    """Starts a thread that SIGKILLs ``server`` as soon as a job of ``sweep`` has written its
    per-question table (all its answers are in): 0.5-1 s before the next job's first request, as measured."""

    def watch():
        while not stop.is_set():
            if any(sweep.glob("*/per_question.jsonl")):
                server.kill()
                return
            time.sleep(0.02)

    threading.Thread(target=watch, daemon=True).start()


def test_a_sweep_whose_server_died_fails_that_job_with_reasons_and_resume_finishes_it(
        served_folder, server_key, tmp_path):
    port = free_port()
    server = start(served_folder, port=port, log=tmp_path / "first.log")
    api = [f"base_url={server.base_url}", f"model={server.model}", f"api_key_env={server_key}",
           "max_retries=0", "timeout=60"]
    sweep_args = [*TINY_DATASET_OVERRIDES, "generator=openai", *(f"generator.{o}" for o in api),
                  "generator.max_tokens=4,5", "generation.sample=2", "metrics.answer.bertscore=null", "stats=none"]
    sweep = tmp_path / "sweep"
    stop = threading.Event()
    try:
        kill_after_the_first_job(server, sweep, stop)
        first = run_cli(tmp_path, *sweep_args, env={server_key: "local"})
    finally:
        stop.set()
        server.stop()
    output = first.stdout[-3000:] + first.stderr[-3000:]
    assert server.process.returncode == -9, output  # killed by the watcher, mid-sweep
    assert first.returncode == 1, output  # a job failed (docs: Sweeps and runs, exit status)

    # the first job: finished, its answers kept; the second: every question a failure with its reason
    jobs = summaries(sweep)
    assert {name: s["status"] for name, s in jobs.items()} == {"0": "FINISHED", "1": "FAILED"}, output
    kept = answered_rows(sweep / "0")
    assert len(kept) == 2 and all(r["answer_error"] is None and r["answer"].strip() for r in kept)
    failed = answered_rows(sweep / "1")
    assert len(failed) == 2 and {r["question_id"] for r in failed} == {r["question_id"] for r in kept}
    for row in failed:
        assert row["answer"] == "" and row["answer_error"] == "APIConnectionError: Connection error.", row
    _, runs = runs_of(tmp_path)
    (parent,), children = split(runs)
    by_tokens = {c.data.params["generator.max_tokens"]: c for c in children}
    before = by_tokens["4"]
    assert before.info.status == "FINISHED" and before.data.metrics["generation/answered"] == 2.0
    broken = by_tokens["5"]
    assert broken.info.status == "FAILED"
    assert broken.data.metrics["generation/failed_count"] == 2.0
    assert broken.data.tags["harness.error"].startswith(
        "generation: all 2 calls failed; most common reason (2x): APIConnectionError: Connection error."), \
        broken.data.tags["harness.error"]
    assert parent.data.metrics["sweep/jobs_failed"] == 1.0

    # the server back on the same port (the sweep's arguments unchanged), and the documented resume
    with start(served_folder, port=port, log=tmp_path / "second.log") as again:
        resumed = run_cli(tmp_path, *sweep_args, f"+resume={sweep}", env={server_key: "local"})
    output = resumed.stdout[-3000:] + resumed.stderr[-3000:]
    assert resumed.returncode == 0, output
    assert "kept from before the interruption" in resumed.stdout + resumed.stderr
    # only the failed job's questions reached the restarted server
    assert again.log.read_text().count("POST /v1/chat/completions") == 2 + 1, again.log.read_text()[-3000:]

    assert {name: s["status"] for name, s in summaries(sweep).items()} == {"0": "FINISHED", "1": "FINISHED"}
    assert answered_rows(sweep / "0") == kept  # nothing of the finished job lost or redone
    answered = answered_rows(sweep / "1")
    assert [r["question_id"] for r in answered] == [r["question_id"] for r in failed]
    assert all(r["answer_error"] is None and r["answer"].strip() for r in answered), answered
    _, runs = runs_of(tmp_path)
    (parent_after,), children = split(runs)
    assert parent_after.info.run_id == parent.info.run_id and parent_after.info.status == "FINISHED"
    assert parent_after.data.metrics["sweep/jobs"] == 2 and parent_after.data.metrics["sweep/jobs_failed"] == 0
    finished = {c.data.params["generator.max_tokens"]: c for c in children if c.info.status == "FINISHED"}
    assert set(finished) == {"4", "5"}
    assert (finished["4"].info.run_id, finished["4"].info.start_time) == (before.info.run_id, before.info.start_time)
    assert finished["5"].data.metrics["generation/answered"] == 2.0
    assert finished["5"].data.metrics.get("generation/failed_count", 0.0) == 0.0
