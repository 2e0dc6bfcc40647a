"""``harness sync`` logic on a sweep folder whose jobs never reached the store."""

from __future__ import annotations

from dataclasses import asdict

from mlflow.tracking import MlflowClient

from harness.results.records import RunResult
from harness.stats.front import Figure, Front, FrontRun
from harness.stats.front_axes import Axis
from harness.tracking.verdicts.front import write_front
from harness.tracking.sweep import state as sweep
from harness.tracking.mlflow.tracker import MLflowTracker
from harness.tracking.outcome import JobInfo
from harness.tracking.sweep.sync import sync_sweep


def _unlogged_sweep(root):
    state = sweep.start_sweep(root)
    state["parent_run_id"] = "0" * 32  # a parent in a store that is not this one
    state["parent"] = {"name": "demo sweep x", "tags": {"harness.role": "sweep", "harness.sweep_id": state["sweep_id"]}}
    sweep.save_sweep(root, state)
    for num, mrr in enumerate([1.0, 0.5]):
        folder = root / str(num)
        result = RunResult(dataset="tiny", dataset_sha256="abc", metrics={"retrieval/mrr": mrr},
                           rows=[{"question_id": "q1", "retrieval/mrr": mrr}], info={"questions": 1},
                           artifacts={"worst_answers.json": "[]"})
        result.write(folder)
        info = JobInfo(name=f"retriever=r{num}", choices={"retriever": f"r{num}"}, overrides=[f"retriever=r{num}"],
                       params={"retriever.top_k": 5}, config_yaml="retriever: {}\n", tags={"harness.version": "x"})
        sweep.write_job_summary(folder, {"sweep_id": state["sweep_id"], "job_num": num, "name": info.name,
                                         "status": "FINISHED", "metrics": result.metrics, "error": None,
                                         "output_dir": str(folder), "job_info": asdict(info),
                                         "tracking_error": "ConnectionError('server down')"})
    (root / "leaderboard.csv").write_text("job,run,status\n")
    (root / "stats.csv").write_text("a,b\n")
    front = Front(champion="retriever=r0", primary={"name": "retrieval/mrr", "direction": "higher"},
                  axes=[Axis("index_memory", info="index_bytes", unit="MB", better="smaller")],
                  runs=[FrontRun("retriever=r0", Figure(1.0), {"index_memory": Figure(2.0)}),
                        FrontRun("retriever=r1", Figure(0.5), {"index_memory": Figure(2.0)}, "retriever=r0", -1)],
                  settings={"alpha": 0.05})
    write_front(root, front, ["retriever=r0", "retriever=r1"])


def test_sync_logs_every_unlogged_job_once_under_a_new_parent(tmp_path):
    root = tmp_path / "sweep"
    _unlogged_sweep(root)
    uri = f"sqlite:///{tmp_path / 'mlflow.db'}"
    tracker = MLflowTracker(uri, "synced", artifact_location=str(tmp_path / "mlruns"))
    report = sync_sweep(root, tracker, ["retrieval/mrr"])
    assert report.parent_created and sorted(report.logged) == ["retriever=r0", "retriever=r1"]
    assert report.sweep_end_logged

    client = MlflowClient(uri)
    runs = client.search_runs([client.get_experiment_by_name("synced").experiment_id])
    parent = next(r for r in runs if r.data.tags.get("harness.role") == "sweep")
    children = {r.info.run_name: r for r in runs if r.data.tags.get("mlflow.parentRunId") == parent.info.run_id}
    assert parent.info.status == "FINISHED" and parent.data.metrics["sweep/jobs"] == 2
    assert {a.path for a in client.list_artifacts(parent.info.run_id)} >= {"leaderboard.csv", "stats.csv", "front.json"}
    # the front the sweep's end computed: the parent names its members, each child its place
    assert parent.data.tags["harness.front"] == "r0"
    assert children["retriever=r0"].data.tags["harness.front"] == "front"
    assert children["retriever=r1"].data.tags["harness.front"] == "dominated by r0"
    assert children["retriever=r1"].data.metrics["retrieval/mrr"] == 0.5
    assert children["retriever=r0"].data.params["retriever.top_k"] == "5"
    assert {a.path for a in client.list_artifacts(children["retriever=r0"].info.run_id)} >= {
        "per_question.jsonl", "worst_answers.json", "config.yaml"}

    again = sync_sweep(root, tracker, ["retrieval/mrr"])
    assert again.logged == [] and not again.parent_created and not again.sweep_end_logged
    assert len(client.search_runs([parent.info.experiment_id])) == 3


def test_run_result_reads_back_what_it_wrote(tmp_path):
    result = RunResult(dataset="d", dataset_sha256="s", rows=[{"question_id": "q", "x": 1.0}],
                       metrics={"x": 1.0}, info={"seconds": {"retrieve": 0.1}}, artifacts={"a.json": "{}"})
    result.write(tmp_path)
    assert RunResult.read(tmp_path) == result


def test_a_race_configuration_is_logged_into_the_run_its_first_round_opened(tmp_path):
    """A race whose end could not be logged: its configurations' runs exist (opened by their first
    rounds, RUNNING), their results do not; sync logs each into its own run and makes no other."""
    root = tmp_path / "sweep"
    _unlogged_sweep(root)
    uri = f"sqlite:///{tmp_path / 'mlflow.db'}"
    tracker = MLflowTracker(uri, "synced", artifact_location=str(tmp_path / "mlruns"))
    state = sweep.read_sweep(root)
    state["parent_run_id"] = tracker.start_sweep("demo sweep x", state["parent"]["tags"])
    sweep.save_sweep(root, state)
    opened = {}
    for num in (0, 1):
        info = JobInfo(**sweep.collect_job_summaries(root, state["sweep_id"])[num]["job_info"])
        opened[info.name] = tracker.start_job(info, state["parent_run_id"])
        sweep.keep_round_run(root / str(num), state["sweep_id"], opened[info.name], {"q1"})
    report = sync_sweep(root, tracker, ["retrieval/mrr"])
    assert not report.parent_created and sorted(report.logged) == ["retriever=r0", "retriever=r1"]

    client = MlflowClient(uri)
    runs = client.search_runs([client.get_experiment_by_name("synced").experiment_id])
    children = {r.info.run_name: r for r in runs if r.data.tags.get("mlflow.parentRunId") == state["parent_run_id"]}
    assert {name: run.info.run_id for name, run in children.items()} == opened and len(runs) == 3
    for name, run in children.items():
        assert run.info.status == "FINISHED" and run.data.metrics["retrieval/mrr"] == (1.0 if name.endswith("r0") else 0.5)
    assert {s["run_id"] for s in sweep.collect_job_summaries(root, state["sweep_id"])} == set(opened.values())


def _opened_runs(root, tracker, statuses):
    """The sweep's parent in this store, and for each job a run it opened before the store went away
    (kept in its folder), left with ``statuses`` (None: none kept, the run's id lost with the server)."""
    state = sweep.read_sweep(root)
    state["parent_run_id"] = tracker.start_sweep("demo sweep x", state["parent"]["tags"])
    sweep.save_sweep(root, state)
    opened = {}
    for num, status in enumerate(statuses):
        summary = sweep.collect_job_summaries(root, state["sweep_id"])[num]
        tags = {**summary["job_info"]["tags"], "harness.sweep_id": state["sweep_id"],
                "harness.output_dir": str((root / str(num)).resolve())}
        info = JobInfo(**{**summary["job_info"], "tags": tags})
        opened[info.name] = tracker.start_job(info, state["parent_run_id"])
        if status == "KILLED":
            tracker.mark_killed([opened[info.name]], "SIGTERM")
        if status is not None:
            sweep.keep_job_run(root / str(num), state["sweep_id"], opened[info.name])
    return state, opened


def test_sync_completes_the_run_a_job_opened_whatever_its_status_and_says_what_it_wrote(tmp_path):
    root = tmp_path / "sweep"
    _unlogged_sweep(root)
    uri = f"sqlite:///{tmp_path / 'mlflow.db'}"
    tracker = MLflowTracker(uri, "synced", artifact_location=str(tmp_path / "mlruns"))
    state, opened = _opened_runs(root, tracker, ["RUNNING", "KILLED"])
    report = sync_sweep(root, tracker, ["retrieval/mrr"])

    client = MlflowClient(uri)
    runs = client.search_runs([client.get_experiment_by_name("synced").experiment_id])
    assert len(runs) == 3  # the parent and the two runs the jobs opened: none made twice
    assert {s["name"]: s["run_id"] for s in sweep.collect_job_summaries(root, state["sweep_id"])} == opened
    for run in runs:
        assert run.info.status == "FINISHED"
    lines = report.lines()
    metrics = len(client.get_run(opened["retriever=r0"]).data.metrics)  # the job's metrics and run facts
    wrote = f"{metrics} metrics, 1 table, 1 trace"
    assert lines[:2] == [f"completed retriever=r0: run {opened['retriever=r0']} FINISHED, was RUNNING; {wrote}",
                         f"completed retriever=r1: run {opened['retriever=r1']} FINISHED, was KILLED; {wrote}"]
    assert lines[2] == (f"Total: 2 run(s) under parent {state['parent_run_id']} (0 created, 2 completed, 0 logged "
                        f"before); {2 * metrics} metrics, 2 tables, 2 traces written")

    again = sync_sweep(root, tracker, ["retrieval/mrr"])
    assert [run.action for run in again.runs] == ["logged before"] * 2
    assert again.lines()[-1].endswith("(0 created, 0 completed, 2 logged before); "
                                      "0 metrics, 0 tables, 0 traces written")


def test_sync_finds_a_run_whose_id_the_dead_server_never_sent_and_closes_a_second_one(tmp_path):
    """No run id kept (the answer to opening it was lost): the run the store holds RUNNING for the
    job's folder is the job's; a second one for the same job is closed as KILLED, naming the first."""
    root = tmp_path / "sweep"
    _unlogged_sweep(root)
    uri = f"sqlite:///{tmp_path / 'mlflow.db'}"
    tracker = MLflowTracker(uri, "synced", artifact_location=str(tmp_path / "mlruns"))
    state, opened = _opened_runs(root, tracker, [None, "RUNNING"])
    _, twice = _opened_runs(root, tracker, [None, None])  # under a second parent: left out of this sweep's
    state["parent_run_id"] = sweep.read_sweep(root)["parent_run_id"]
    report = sync_sweep(root, tracker, ["retrieval/mrr"])

    client = MlflowClient(uri)
    summaries = {s["name"]: s["run_id"] for s in sweep.collect_job_summaries(root, state["sweep_id"])}
    assert summaries["retriever=r1"] == opened["retriever=r1"]  # the run its folder names
    assert summaries["retriever=r0"] in (opened["retriever=r0"], twice["retriever=r0"])
    second = ({opened["retriever=r0"], twice["retriever=r0"], twice["retriever=r1"]} - set(summaries.values()))
    for run_id in second:
        run = client.get_run(run_id)
        assert run.info.status == "KILLED" and "a second run of" in run.data.tags["harness.killed_by"]
    assert [run.action for run in report.runs] == ["completed", "completed"] and len(report.closed) == 2
    assert all(client.get_run(run_id).info.status == "FINISHED" for run_id in summaries.values())
