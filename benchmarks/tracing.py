"""What the question traces cost `make run`'s sweep (issue 35): the demo sweep with and without them;
and a 10,000-question single run (issue 45, ``--scale``: :mod:`tracing_scale`).

    python benchmarks/tracing.py --repeats 1 [--json FILE] [-- extra sweep overrides]
    python benchmarks/tracing.py --scale 10000 [--postgres] [--cold] [--json FILE] [-- extra overrides]

Per repeat, in alternating order, each variant (``tracking.traces=none`` and ``auto``, the default) runs the demo
sweep from a fresh cache and MLflow store (cold), then the identical re-run (warm, every answer and
judgement from the cache); wall and CPU seconds (the sweep process tree's user + system) of each,
and the ratios traces / no traces (goals: cold <= 1.05, re-run <= 1.25); then the latency MLflow's
experiment Overview charts on the traced store against the questions' own span sums
(:mod:`trace_latency`; goal: p50 within 10%).

With ``--cache DIR`` (a cache a sweep of the same configurations already filled) only the re-runs
are measured, each into a fresh store: the cold runs take hours on a loaded 2-core machine.

Then the writer on its own: each job of the last traced sweep has its traces written again into a
fresh store (new runs), one job at a time, timed (seconds per job, per trace, per assessment); and,
for scale, the same questions written naively with ``mlflow.start_span`` and ``mlflow.log_feedback``
(the first ``--naive`` questions of one job, exported synchronously as the issue measured it).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))
import trace_latency  # noqa: E402 - beside this file
HARNESS = [sys.executable, "-m", "harness", "experiment=demo_sweep"]
VARIANTS = ("none", "auto")  # auto, the default, traces every question of a demo job (< traces_max)


def run_sweep(workdir: Path, traces: str, extra: list[str], cache: Path | None = None) -> dict[str, float]:
    """Wall and CPU seconds of one sweep in ``workdir`` (its store stays there, and its cache unless given)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run([*HARNESS, f"cache.dir={cache or workdir / 'cache'}", f"hydra.sweep.dir={workdir / 'sweep'}",
                           f"tracking.tracking_uri=sqlite:///{workdir / 'mlflow.db'}",
                           f"tracking.artifact_location={workdir / 'mlruns'}", f"tracking.traces={traces}", *extra],
                          cwd=workdir, capture_output=True, text=True,
                          env={**os.environ, "HF_HUB_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false"})
    wall = time.perf_counter() - start
    if done.returncode != 0:
        raise RuntimeError(f"sweep failed ({done.returncode}):\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}")
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return {"wall": round(wall, 2), "cpu": round(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime, 2)}


def traces_in(workdir: Path) -> int:
    from mlflow.tracing.client import TracingClient

    store = TracingClient(f"sqlite:///{workdir / 'mlflow.db'}").store
    experiment = store.get_experiment_by_name("demo").experiment_id
    count, token = 0, None
    while True:
        infos, token = store.search_traces(locations=[experiment], max_results=500, page_token=token)
        count += len(infos)
        if not token:
            return count


def job_content(folder: Path):
    """What the job's traces hold (its logged ``tracking.trace_assessments`` and passage length)."""
    from omegaconf import OmegaConf

    import harness.config
    from harness.tracking.trace_policy import TraceContent

    harness.config.register()
    tracking = OmegaConf.load(folder / ".hydra" / "config.yaml").tracking
    assessed = OmegaConf.to_container(tracking, resolve=True).get("trace_assessments")
    return TraceContent(None if assessed is None else tuple(assessed), int(tracking.get("trace_passage_chars") or 0))


def writer_alone(sweep: Path, scratch: Path) -> dict[str, float]:
    """Each job's traces written again, synchronously, into a fresh store, with the content the job's
    config gives them (as a sweep writes them): seconds per job and per trace."""
    from harness.results.records import RunResult
    from harness.tracking.mlflow.traces import build_trace
    from harness.tracking.mlflow.trace_writer import TraceJob, TraceWriter
    from harness.tracking.mlflow.tracker import MLflowTracker

    uri = f"sqlite:///{scratch / 'writer.db'}"
    tracker = MLflowTracker(uri, "writer", str(scratch / "writer_artifacts"), ui_hint=False, traces="none")
    writer = TraceWriter(uri)
    experiment = tracker._experiment()
    seconds, traces, assessments = [], 0, 0
    for folder in sorted(p.parent for p in sweep.glob("*/stages.json")):
        result = RunResult.read(folder)
        content = job_content(folder)
        run_id = tracker._client.create_run(experiment, run_name=folder.name).info.run_id
        start = time.perf_counter()
        job = TraceJob(experiment, run_id, folder.name, result.rows, result.stages, content=content)
        traces += writer.write(job)
        seconds.append(time.perf_counter() - start)
        assessments += sum(len(build_trace(row, result.stages, run_id, experiment, folder.name, content).info.assessments)
                           for row in result.rows)
    failures = writer.flush()
    if failures:
        raise RuntimeError("; ".join(failures))
    return {"jobs": len(seconds), "traces": traces, "assessments": assessments,
            "seconds_total": round(sum(seconds), 2), "seconds_per_job_median": round(statistics.median(seconds), 3),
            "ms_per_trace": round(1000 * sum(seconds) / max(traces, 1), 2)}


def naive(sweep: Path, scratch: Path, questions: int) -> dict[str, float]:
    """The first questions of one job with MLflow's fluent tracing: a span tree per question through
    ``mlflow.start_span`` and one ``mlflow.log_feedback`` per metric."""
    os.environ["MLFLOW_ENABLE_ASYNC_TRACE_LOGGING"] = "false"  # each trace written before its feedback
    import mlflow
    from mlflow.entities import AssessmentSource

    from harness.results.records import RunResult

    mlflow.set_tracking_uri(f"sqlite:///{scratch / 'naive.db'}")
    mlflow.set_experiment("naive")
    result = RunResult.read(sorted(p.parent for p in sweep.glob("*/stages.json"))[0])
    rows = result.rows[:questions]
    source = AssessmentSource("CODE", "harness")
    start = time.perf_counter()
    with mlflow.start_run():
        for row in rows:
            with mlflow.start_span(name="question") as root:
                root.set_inputs({"question": row["question"], "question_id": row["question_id"]})
                for span in result.stages.spans_of(row["question_id"]):
                    with mlflow.start_span(name=span.name) as child:
                        child.set_inputs(span.inputs)
                        child.set_outputs(span.outputs if span.documents is None else span.documents)
                root.set_outputs(row.get("answer"))
            trace_id = root.trace_id
            for key, value in row.items():
                if "/" in key and value is not None:
                    mlflow.log_feedback(trace_id=trace_id, name=key, value=value, source=source)
    seconds = time.perf_counter() - start
    return {"questions": len(rows), "seconds": round(seconds, 2), "ms_per_trace": round(1000 * seconds / len(rows), 1)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--naive", type=int, default=20, help="questions written naively (0: skip)")
    parser.add_argument("--cache", type=Path, help="a filled cache: measure only the re-runs, on it")
    parser.add_argument("--json", type=Path, default=ROOT / "benchmarks" / "results" / "tracing.json")
    parser.add_argument("--scale", type=int, default=0,
                        help="questions of a SQuAD-shaped single run: tracking.traces none/auto/all (0: the demo sweep)")
    parser.add_argument("--postgres", action="store_true", help="--scale: into mlflow server on PostgreSQL")
    parser.add_argument("--cold", action="store_true", help="--scale: each run from an empty cache")
    parser.add_argument("extra", nargs="*", help="overrides for the sweep (after --), e.g. chunker=recursive")
    args = parser.parse_args()
    if args.scale:
        from tracing_scale import measure

        report = {"command": "python benchmarks/tracing.py " + " ".join(sys.argv[1:]),
                  **measure(args.scale, args.postgres, args.cold, args.extra)}
        print(json.dumps(report, indent=2))
        out = args.json if "--json" in sys.argv else args.json.with_name(
            f"tracing_scale{'_postgres' if args.postgres else ''}.json")
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(report, indent=2))
        return
    runs: dict[str, dict[str, list]] = {v: {"cold": [], "warm": []} for v in VARIANTS}
    with tempfile.TemporaryDirectory(prefix="harness-tracing-") as tmp:
        last = None
        for repeat in range(args.repeats):
            for variant in VARIANTS if repeat % 2 == 0 else VARIANTS[::-1]:
                workdir = Path(tmp) / f"{variant}-{repeat}"
                workdir.mkdir()
                for phase in ("cold", "warm") if args.cache is None else ("warm",):
                    runs[variant][phase].append(run_sweep(workdir, variant, args.extra, args.cache))
                    print(f"repeat {repeat + 1} traces={variant} {phase}: {runs[variant][phase][-1]}", flush=True)
                if variant == "auto":
                    last = workdir
                    print(f"traces in the store: {traces_in(workdir)}", flush=True)
        report = {"command": "python benchmarks/tracing.py " + " ".join(sys.argv[1:]), "repeats": args.repeats}
        for phase in ("cold", "warm") if args.cache is None else ("warm",):
            for measure in ("wall", "cpu"):
                base = statistics.median(r[measure] for r in runs["none"][phase])
                traced = statistics.median(r[measure] for r in runs["auto"][phase])
                report[f"{phase}_{measure}_seconds"] = {"none": base, "auto": traced}
                report[f"{phase}_{measure}_ratio"] = round(traced / base, 3)
        report["traces_in_store"] = traces_in(last)
        # what MLflow's experiment Overview charts as latency, against the questions' own time
        report["overview_latency"] = trace_latency.measure(f"sqlite:///{last / 'mlflow.db'}", "demo")
        report["writer_alone"] = writer_alone(last / "sweep", Path(tmp))
        if args.naive:
            report["naive_fluent"] = naive(last / "sweep", Path(tmp), args.naive)
        report["runs"] = runs
    print(json.dumps(report, indent=2))
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
