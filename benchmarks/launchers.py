"""Wall time of `make run`'s demo sweep under each launcher, and of its identical re-run.

    python benchmarks/launchers.py                      # basic, harness, joblib (2 workers), Ray (2 CPUs)
    python benchmarks/launchers.py --launchers basic,harness   # Hydra's basic launcher against the default
    python benchmarks/launchers.py --launchers basic,ray -- retriever=bm25,dense   # another sweep

Every launcher's sweep starts cold (its own fresh cache and MLflow store in a temporary folder);
the basic launcher's sweep then runs again on its warm cache. Reported: each wall time, each
launcher's ratio to basic (below 1: faster), and the re-run's ratio to the cold run. The machine's
cores are shared by both workers, so a ratio near 1 means the sweep is bound by CPU, not by
the launcher.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LAUNCHERS = {
    "basic": ["hydra/launcher=basic"],
    "harness": [],  # the default: hydra_plugins/harness_launcher
    "joblib": ["hydra/launcher=joblib", "hydra.launcher.n_jobs=2"],
    "ray": ["hydra/launcher=ray", "hydra.launcher.ray.init.num_cpus=2"],
}


def timed_sweep(workdir: Path, sweep: list[str], launcher: list[str], name: str) -> float:
    """Seconds of one sweep run in ``workdir`` (its cache and store live there)."""
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "harness", *sweep, *launcher, f"cache.dir={workdir / 'cache'}",
         f"tracking.tracking_uri=sqlite:///{workdir / 'mlflow.db'}", f"tracking.artifact_location={workdir / 'mlruns'}",
         f"hydra.sweep.dir={workdir / name}"],
        cwd=workdir, capture_output=True, text=True,
        env={**os.environ, "HF_HUB_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false"})
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{name} sweep failed ({done.returncode}):\n{done.stderr[-3000:]}")
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--launchers", default="basic,harness,joblib,ray", help="comma-separated, basic first")
    parser.add_argument("sweep", nargs="*", default=["experiment=demo_sweep"],
                        help="the sweep's overrides (default: experiment=demo_sweep)")
    args = parser.parse_args()
    names = args.launchers.split(",")
    if names[0] != "basic" or not set(names) <= set(LAUNCHERS):
        parser.error(f"--launchers: basic first, then any of {sorted(LAUNCHERS)}")
    sweep = list(args.sweep) if any(a.startswith("experiment=") for a in args.sweep) or "-m" in args.sweep \
        else ["-m", *args.sweep]
    seconds: dict[str, float] = {}
    with tempfile.TemporaryDirectory(prefix="harness-launchers-") as tmp:
        for name in names:
            workdir = Path(tmp) / name
            workdir.mkdir()
            seconds[name] = timed_sweep(workdir, sweep, LAUNCHERS[name], "cold")
            print(f"{name}: cold {seconds[name]:.1f} s", flush=True)
            if name == "basic":
                seconds["basic_rerun"] = timed_sweep(workdir, sweep, LAUNCHERS[name], "rerun")
                print(f"basic: identical re-run {seconds['basic_rerun']:.1f} s", flush=True)
    report = {
        "command": " ".join(["python benchmarks/launchers.py", f"--launchers {args.launchers}", *args.sweep]),
        "cpu_cores": os.cpu_count(),
        "seconds": {k: round(v, 1) for k, v in seconds.items()},
        "ratio_to_basic": {name: round(seconds[name] / seconds["basic"], 3) for name in names},
        "rerun_over_cold": round(seconds["basic_rerun"] / seconds["basic"], 3),
    }
    print(json.dumps(report, indent=2))
    out = ROOT / "benchmarks" / "results" / "launchers.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
