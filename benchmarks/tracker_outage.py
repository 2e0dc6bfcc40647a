"""What a tracking server lost mid-sweep costs the sweep: the seconds it runs after the server dies.

A 4-job BM25 sweep on the tiny test data logs to ``mlflow server`` on PostgreSQL (both started here
on free loopback ports, as the tests start them: ``tests/services.py``); the server is killed
(``kill -9``) as job #2 starts. With one wait per outage (issue 48) the sweep ends about
``retry_seconds`` after the kill; when each job waited the whole window, about
``jobs left x retry_seconds``. ``--code DIR`` times another checkout's code (e.g. an export of an
older commit) alternating with this one. Printed and written to ``results/tracker_outage.json``:
the median seconds after the kill per code, and the sweep's exit status.

    python benchmarks/tracker_outage.py --retry-seconds 8 --repeats 1 [--code /tmp/old-checkout]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "results"
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.conftest import TINY_DATASET_OVERRIDES  # noqa: E402
from tests.services import postgres, start_mlflow_server  # noqa: E402


def after_kill(code: Path, database: str, retry_seconds: float) -> tuple[float, int]:
    """Seconds the sweep of ``code`` ran after its server was killed as job #2 started; its exit status."""
    with tempfile.TemporaryDirectory(prefix="tracker-outage-bench-") as tmp:
        folder = Path(tmp)
        server = start_mlflow_server(database, folder / "artifacts")
        args = ["-m", *TINY_DATASET_OVERRIDES, "chunker=none,recursive", "retriever=bm25", "retriever.k1=0.9,1.2",
                f"tracking.tracking_uri={server.uri}", "tracking.artifact_location=null",
                f"tracking.server.retry_seconds={retry_seconds}", f"cache.dir={folder / 'cache'}",
                f"hydra.sweep.dir={folder / 'sweep'}", f"experiment_name=outage-{time.time_ns()}"]
        env = {**os.environ, "PYTHONPATH": str(code), "HF_HUB_OFFLINE": "1", "PYTHONWARNINGS": "ignore"}
        try:
            sweep = subprocess.Popen([sys.executable, "-m", "harness", *args], cwd=folder, env=env,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            while not (folder / "sweep" / "1").exists():  # job #2's folder: it starts
                if sweep.poll() is not None:
                    sys.exit(f"the sweep of {code} ended before its second job (exit {sweep.returncode})")
                time.sleep(0.02)
            server.kill()
            killed = time.monotonic()
            status = sweep.wait()
            return time.monotonic() - killed, status
        finally:
            server.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--retry-seconds", type=float, default=8)
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--code", type=Path, help="another checkout to time alternating with this one")
    args = parser.parse_args()
    codes = {"this": ROOT, **({"other": args.code.resolve()} if args.code else {})}
    seconds: dict[str, list[float]] = {name: [] for name in codes}
    statuses: dict[str, list[int]] = {name: [] for name in codes}
    with postgres() as database:
        for _ in range(args.repeats):
            for name, code in codes.items():
                taken, status = after_kill(code, database, args.retry_seconds)
                seconds[name].append(taken)
                statuses[name].append(status)
    figures = {name: {"code": str(codes[name]), "seconds_after_kill": round(statistics.median(seconds[name]), 1),
                      "runs": [round(s, 1) for s in seconds[name]], "exit_status": statuses[name],
                      "retry_seconds": args.retry_seconds} for name in codes}
    for name, figure in figures.items():
        print(f"{name} ({figure['code']}): {figure['seconds_after_kill']} s after the kill "
              f"(retry_seconds={args.retry_seconds:g}; runs {figure['runs']}; exit {figure['exit_status']})")
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "tracker_outage.json").write_text(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
