"""What opening a new MLflow SQLite store costs: a copy of the cached empty store against MLflow
building its tables by running every schema migration (harness/tracking/mlflow/store.py).

Each opening runs in a fresh process (as every `harness` command and sweep worker does), interleaved
so that load on a shared machine hits both alike: the process imports MLflow, then times
``open_client`` on a new database, then one ``search_experiments``. An existing store is opened too,
for scale. Printed and written to ``results/new_store.json``: median wall and CPU seconds of each.

    python benchmarks/new_store.py --repeats 7
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "results"
ROOT = Path(__file__).resolve().parents[1]

PROBE = """
import json, sys, time
import mlflow.tracking  # imported before timing: every harness process imports it anyway
from harness.tracking.mlflow.store import open_client
start, start_cpu = time.perf_counter(), time.process_time()
open_client(f"sqlite:///{sys.argv[1]}").search_experiments(max_results=1)
print(json.dumps({"wall": time.perf_counter() - start, "cpu": time.process_time() - start_cpu}))
"""


def opening(database: Path, machine_cache: str) -> dict[str, float]:
    """Seconds to open ``database`` in a new process with ``$HARNESS_MODEL_CACHE=machine_cache``."""
    env = {**os.environ, "HARNESS_MODEL_CACHE": machine_cache, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", PROBE, str(database)], env=env, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"opening {database} failed:\n{done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    modes = {"copied": [], "migrated": [], "existing": []}
    with tempfile.TemporaryDirectory(prefix="new-store-bench-") as tmp:
        folder = Path(tmp)
        cache = str(folder / "machine-cache")
        opening(folder / "warm-up.db", cache)  # builds the cached empty store once, untimed
        for repeat in range(args.repeats):
            modes["copied"].append(opening(folder / f"copied-{repeat}.db", cache))
            modes["migrated"].append(opening(folder / f"migrated-{repeat}.db", "off"))
            modes["existing"].append(opening(folder / "warm-up.db", cache))
    figures = {mode: {kind: round(statistics.median(run[kind] for run in runs), 3) for kind in ("wall", "cpu")}
               for mode, runs in modes.items()}
    for mode, figure in figures.items():
        print(f"{mode:9} new store: median wall {figure['wall']:.3f} s, CPU {figure['cpu']:.3f} s"
              if mode != "existing" else
              f"{mode:9} store:     median wall {figure['wall']:.3f} s, CPU {figure['cpu']:.3f} s")
    saved = figures["migrated"]["cpu"] - figures["copied"]["cpu"]
    print(f"a new store copied instead of migrated: {saved:.2f} CPU s less "
          f"({figures['copied']['cpu'] / figures['migrated']['cpu']:.2f} of the CPU time), over {args.repeats} repeats")
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "new_store.json").write_text(json.dumps({"repeats": args.repeats, **figures}, indent=2) + "\n")


if __name__ == "__main__":
    main()
