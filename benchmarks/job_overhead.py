"""What the harness costs per job once the cache is warm: a 64-job sweep of cheap jobs and `make run`'s re-run.

    python benchmarks/job_overhead.py [--jobs 64] [--repeats 1] [--code DIR ...] [--skip-demo | --skip-cheap]
                                      [--json FILE] [-- overrides]

Two sweeps, each run once to fill its cache and MLflow store (the demo's first run is `make run` from a
cold cache, timed as ``demo_cold_s``), then re-run identically ``--repeats`` times:

- ``cheap``: BM25 on the demo data, ``retriever.top_k=5..68`` (64 jobs by default, ``--jobs``): the
  pipeline takes milliseconds a job, so nearly all of the time is the harness's own;
- ``demo``: ``harness experiment=demo_sweep`` (what `make run` runs: 9 jobs, every answer and
  judgement then read from the cache).

Every run is timed whole (wall and CPU seconds of the process, start-up included) and per phase, by
timers wrapped around the functions that make each phase in the harness process (each phase's own
time: an import inside a check counts as an import): imports (modules loaded), composition (Hydra
composing the sweep's and each job's config), start-up checks (config checks, the dataset, every
job built before the parent run), building parts (in the job), the pipeline, tracking (the
callbacks' remaining work: MLflow runs, per-question tables, artifacts), end-of-sweep statistics
and report, waiting for the harness launcher's worker (its jobs), logging what the worker's jobs
handed back (their MLflow runs and summaries, their traces queued for the writer process), and the
rest (Hydra's launcher and logging set-up, result files). The worker is timed the same way (``worker_phases_*``): imports,
composition, Hydra's ``run_job`` (its copies of the config, ``HydraConfig``), the ``.hydra/*.yaml``
files it writes, tracking (the callbacks in the job), building parts, the pipeline, waiting for the
launcher, and the rest (the job's messages); ``worker_per_job_ms`` is each of its job phases per job.
Each run composes from its own composition store (``$HARNESS_COMPOSITION_CACHE`` in the run's folder,
empty before its first run). ``per_job_overhead_s``:
(the whole cheap re-run - its pipeline) / jobs, wall seconds; ``demo_rerun_s``: the demo re-run's
wall seconds. ``--code DIR`` runs the same benchmark on another checkout's code (e.g. the main
branch's, ``--code /work/main``) alternating with this one, in the same folders, so both see the
same machine load.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ENV = {"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false"}
PHASES = ["imports", "composition", "start-up checks", "building parts", "pipeline", "tracking",
          "end-of-sweep statistics and report", "jobs in the worker", "logging the worker's jobs", "other"]
# (module, attribute path, phase): what makes each phase in the harness process. A target missing
# from a checkout is skipped; an inner phase takes over from the outer one while it runs.
TARGETS = [
    ("_frozen_importlib", "_find_and_load", "imports"),
    ("hydra._internal.config_loader_impl", "ConfigLoaderImpl.load_configuration", "composition"),
    ("harness.jobs", "_ComposedOnce.__call__", "composition"),
    ("harness.config.composition", "ComposedByChoices.__call__", "composition"),
    ("harness.config.stored", "load_configuration", "composition"),  # a kept composition read back
    ("harness.tracking.sweep.callback", "TrackingCallback.on_multirun_start", "tracking"),
    ("harness.tracking.sweep.callback", "TrackingCallback.on_job_start", "tracking"),
    ("harness.tracking.sweep.callback", "TrackingCallback.on_job_end", "tracking"),
    ("harness.tracking.sweep.callback", "TrackingCallback.on_multirun_end", "tracking"),
    ("harness.tracking.sweep.callback", "check_config", "start-up checks"),
    ("harness.tracking.sweep.callback", "_check_dataset", "start-up checks"),
    ("harness.tracking.sweep.callback", "check_sweep_jobs", "start-up checks"),
    ("harness.cli.sweep", "build_job", "building parts"),
    ("harness.cli.sweep", "run_pipeline", "pipeline"),
    ("harness.tracking.sweep.callback", "plan_sweep", "end-of-sweep statistics and report"),
    ("harness.tracking.sweep.callback", "report_sweep_statistics", "end-of-sweep statistics and report"),
    ("harness.tracking.verdicts.statistics", "plan_sweep", "end-of-sweep statistics and report"),  # imported on use
    ("harness.tracking.verdicts.statistics", "report_sweep_statistics", "end-of-sweep statistics and report"),
    ("harness.tracking.sweep.callback", "_report", "end-of-sweep statistics and report"),
    ("harness.tracking.sweep.callback", "describe_runs", "end-of-sweep statistics and report"),
    ("harness.workers.batch", "wait", "jobs in the worker"),  # the harness launcher waiting for its workers
    # what a worker's jobs handed back with their answers (their runs, summaries, traces queued)
    ("harness.tracking.sweep.handoff", "run", "logging the worker's jobs"),
]
# The harness launcher's worker process, timed the same way (a sitecustomize module the benchmark puts
# on the worker's path starts the clock): what its jobs cost, by phase.
WORKER_PHASES = ["imports", "composition", "Hydra's run_job (config copies, HydraConfig)", "Hydra's .hydra/*.yaml files",
                 "tracking", "building parts", "pipeline", "waiting for the launcher", "other"]
WORKER_TARGETS = [
    ("_frozen_importlib", "_find_and_load", "imports"),
    ("harness.workers.job", "run_job", "Hydra's run_job (config copies, HydraConfig)"),
    ("hydra.core.utils", "_save_config", "Hydra's .hydra/*.yaml files"),
    ("harness.config.composition", "ComposedByChoices.__call__", "composition"),
    ("harness.workers.job", "next_round", "composition"),  # a race's continued round
    ("harness.tracking.sweep.callback", "TrackingCallback.on_job_start", "tracking"),
    ("harness.tracking.sweep.callback", "TrackingCallback.on_job_end", "tracking"),
    ("harness.cli.sweep", "build_job", "building parts"),
    ("harness.cli.sweep", "run_pipeline", "pipeline"),
    ("multiprocessing.connection", "Connection.recv_bytes", "waiting for the launcher"),
]
WORKER_ENV = "JOB_OVERHEAD_WORKER_PHASES"
WORKER_SITE = f"""import os, sys
if os.environ.get({WORKER_ENV!r}) and sys.orig_argv[1:2] == ["-c"] and "serve_on" in sys.orig_argv[2]:
    sys.path.insert(0, {str(Path(__file__).resolve().parent)!r})
    import job_overhead
    del sys.path[0]
    job_overhead.time_worker(os.environ[{WORKER_ENV!r}])
"""


# --- in the harness process (--child) ------------------------------------------------------------

class PhaseClock:
    """Each phase's own wall and CPU seconds: while an inner phase runs, the outer one's clock stops."""

    def __init__(self, phases: list[str] = PHASES) -> None:
        self.wall = dict.fromkeys(phases, 0.0)
        self.cpu = dict.fromkeys(phases, 0.0)
        self.stack = ["other"]
        self.since = (time.perf_counter(), time.process_time())

    def switch(self, phase: str | None) -> None:
        now = (time.perf_counter(), time.process_time())
        current = self.stack[-1]
        self.wall[current] += now[0] - self.since[0]
        self.cpu[current] += now[1] - self.since[1]
        self.since = now
        if phase is None:
            self.stack.pop()
        else:
            self.stack.append(phase)

    def wrap(self, function, phase: str):
        def timed(*args, **kwargs):
            self.switch(phase)
            try:
                return function(*args, **kwargs)
            finally:
                self.switch(None)
        timed.__wrapped__ = function
        return timed


def install(clock: PhaseClock, targets: list[tuple[str, str, str]]) -> None:
    """Wraps each target that this code has in the clock's timer of its phase."""
    import importlib

    for module_name, path, phase in targets:
        try:
            module = importlib.import_module(module_name)
            *owners, name = path.split(".")
            owner = module
            for part in owners:
                owner = getattr(owner, part)
            setattr(owner, name, clock.wrap(getattr(owner, name), phase))
        except (ImportError, AttributeError):
            continue


def time_worker(folder: str) -> None:
    """In a harness launcher's worker (from WORKER_SITE): its phases, written to ``folder`` at exit."""
    import atexit

    clock = PhaseClock(WORKER_PHASES)
    install(clock, WORKER_TARGETS)

    def write() -> None:
        clock.switch("other")
        Path(folder, f"worker-{os.getpid()}.json").write_text(json.dumps({"wall": clock.wall, "cpu": clock.cpu}))

    atexit.register(write)


def child(out: Path, arguments: list[str]) -> None:
    """Runs ``harness arguments`` in this process with the phase timers; writes them at exit."""
    import atexit

    clock = PhaseClock()
    started = time.perf_counter(), time.process_time()
    install(clock, TARGETS)
    site = out.parent / "worker-site"  # the harness launcher's workers time themselves too
    site.mkdir(exist_ok=True)
    (site / "sitecustomize.py").write_text(WORKER_SITE)
    (out.parent / "worker-phases").mkdir(exist_ok=True)
    os.environ["PYTHONPATH"] = os.pathsep.join([str(site), os.environ.get("PYTHONPATH", "")])
    os.environ[WORKER_ENV] = str(out.parent / "worker-phases")

    def write() -> None:
        clock.switch("other")
        out.write_text(json.dumps({"wall": clock.wall, "cpu": clock.cpu,
                                   "in_process_wall": time.perf_counter() - started[0],
                                   "in_process_cpu": time.process_time() - started[1]}))

    atexit.register(write)
    sys.argv = ["harness", *arguments]
    from harness.cli.main import cli

    cli()


# --- the benchmark ------------------------------------------------------------------------------

def timed_run(code: Path, folder: Path, arguments: list[str], compositions: Path) -> dict:
    """One harness run in ``folder`` with ``code`` on the path (its kept compositions in
    ``compositions``, empty before the first run): whole and per-phase seconds."""
    phases = folder / "phases.json"
    shutil.rmtree(folder / "worker-phases", ignore_errors=True)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run([sys.executable, __file__, "--child", str(phases), "--", *arguments], cwd=folder,
                          capture_output=True, text=True, env={**os.environ, **ENV, "PYTHONPATH": str(code),
                                                             "HARNESS_COMPOSITION_CACHE": str(compositions)})
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        sys.exit(f"harness {' '.join(arguments)} failed in {folder}:\n{done.stdout[-2000:]}\n{done.stderr[-3000:]}")
    measured = json.loads(phases.read_text())
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    # Interpreter start-up and teardown, outside the timers, count as "other".
    measured["wall"]["other"] += wall - measured["in_process_wall"]
    workers = [json.loads(path.read_text()) for path in sorted((folder / "worker-phases").glob("*.json"))]
    # the children's CPU holds the workers': theirs is in their own phases
    measured["cpu"]["other"] += cpu - measured["in_process_cpu"] - sum(sum(w["cpu"].values()) for w in workers)
    return {"wall": wall, "cpu": cpu, "phases_wall": measured["wall"], "phases_cpu": measured["cpu"],
            "worker_wall": {phase: sum(w["wall"][phase] for w in workers) for phase in WORKER_PHASES},
            "worker_cpu": {phase: sum(w["cpu"][phase] for w in workers) for phase in WORKER_PHASES}}


def sweep_arguments(kind: str, jobs: int, folder: Path, cache: Path, extra: list[str]) -> list[str]:
    where = [*extra, f"tracking.tracking_uri=sqlite:///{folder / 'mlflow.db'}", f"tracking.artifact_location={folder / 'mlruns'}",
             f"cache.dir={cache}", f"hydra.sweep.dir={folder / 'sweep'}"]
    if kind == "cheap":
        return ["-m", f"retriever.top_k=range(5,{5 + jobs})", *where]
    return ["experiment=demo_sweep", *where]


def median_run(runs: list[dict]) -> dict:
    """The run of median wall time."""
    return sorted(runs, key=lambda run: run["wall"])[len(runs) // 2]


def figures(runs: list[dict], jobs: int) -> dict:
    run = median_run(runs)
    pipeline_wall = run["phases_wall"]["pipeline"] + run["worker_wall"]["pipeline"]
    pipeline_cpu = run["phases_cpu"]["pipeline"] + run["worker_cpu"]["pipeline"]
    in_jobs = {phase: seconds for phase, seconds in run["worker_wall"].items()
               if phase not in ("imports", "waiting for the launcher")}  # what the worker spends on its jobs
    return {
        "wall_s": round(run["wall"], 2), "cpu_s": round(run["cpu"], 2), "walls_s": [round(r["wall"], 2) for r in runs],
        "per_job_overhead_s": round((run["wall"] - pipeline_wall) / jobs, 3),
        "per_job_overhead_cpu_s": round((run["cpu"] - pipeline_cpu) / jobs, 3),
        "phases_wall_s": {k: round(v, 2) for k, v in run["phases_wall"].items()},
        "phases_cpu_s": {k: round(v, 2) for k, v in run["phases_cpu"].items()},
        "worker_phases_wall_s": {k: round(v, 2) for k, v in run["worker_wall"].items()},
        "worker_phases_cpu_s": {k: round(v, 2) for k, v in run["worker_cpu"].items()},
        "worker_per_job_ms": {k: round(1000 * v / jobs, 1) for k, v in in_jobs.items()},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--jobs", type=int, default=64, help="jobs of the cheap sweep")
    parser.add_argument("--repeats", type=int, default=1, help="timed re-runs of each sweep and code")
    parser.add_argument("--code", type=Path, action="append", default=[],
                        help="another checkout whose code runs the same benchmark (alternating with this one)")
    parser.add_argument("--skip-demo", action="store_true", help="only the cheap sweep")
    parser.add_argument("--skip-cheap", action="store_true", help="only the demo sweep")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    parser.add_argument("overrides", nargs="*", help="overrides for both sweeps (after --), e.g. tracking.traces=none")
    args = parser.parse_args()
    codes = [ROOT, *(path.resolve() for path in args.code)]
    kinds = [kind for kind, skipped in (("cheap", args.skip_cheap), ("demo", args.skip_demo)) if not skipped]
    results: dict = {"command": "python benchmarks/job_overhead.py " + " ".join(sys.argv[1:]), "load_average_start": os.getloadavg()}
    with tempfile.TemporaryDirectory(prefix="job-overhead-") as tmp:
        runs: dict[tuple[str, int], list[dict]] = {}
        cold: dict[str, float] = {}
        for kind in kinds:
            cache = Path(tmp) / f"cache-{kind}"
            folders = [Path(tmp) / f"{kind}-{number}" for number in range(len(codes))]
            for number, (code, folder) in enumerate(zip(codes, folders)):  # the first run fills cache and store
                folder.mkdir()
                first = timed_run(code, folder, sweep_arguments(kind, args.jobs, folder, cache, args.overrides),
                                  folder / "compositions")
                if number == 0:
                    cold[kind] = first["wall"]
                print(f"{kind} first run ({code}): {first['wall']:.1f} s", flush=True)
            for _ in range(args.repeats):
                for number, (code, folder) in enumerate(zip(codes, folders)):
                    run = timed_run(code, folder, sweep_arguments(kind, args.jobs, folder, cache, args.overrides),
                                    folder / "compositions")
                    runs.setdefault((kind, number), []).append(run)
                    print(f"{kind} re-run ({code}): {run['wall']:.1f} s wall, {run['cpu']:.1f} s CPU", flush=True)
    results["load_average_end"] = os.getloadavg()
    for number, code in enumerate(codes):
        entry = {"code": str(code)}
        if "cheap" in kinds:
            entry["cheap"] = figures(runs[("cheap", number)], args.jobs)
            entry["per_job_overhead_s"] = entry["cheap"]["per_job_overhead_s"]
        if "demo" in kinds:
            entry["demo"] = figures(runs[("demo", number)], 9)
            entry["demo_rerun_s"] = entry["demo"]["wall_s"]
            entry["demo_cold_s"] = round(cold["demo"], 2)
            entry["demo_rerun_over_cold"] = round(entry["demo_rerun_s"] / cold["demo"], 4)
        results["this" if number == 0 else f"code_{number}"] = entry
    results.update({key: results["this"][key] for key in ("per_job_overhead_s", "demo_rerun_s", "demo_cold_s",
                                                          "demo_rerun_over_cold") if key in results["this"]})
    text = json.dumps(results, indent=2)
    print(text)
    out = ROOT / "benchmarks" / "results"
    out.mkdir(parents=True, exist_ok=True)
    (out / "job_overhead.json").write_text(text + "\n")
    if args.json:
        args.json.write_text(text + "\n")


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "--child":
        child(Path(sys.argv[2]), sys.argv[4:])
    else:
        main()
