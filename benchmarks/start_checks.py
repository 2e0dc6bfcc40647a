"""What the start-up checks add to `make run`: building every job of the demo sweep from its
composed config (harness/jobs.py), the `_target_` allowlist and the secret checks, and redaction
of a per-question table's worth of text.

Composing a job's config is not counted as the checks' cost: Hydra's launcher composes every job
anyway, and since the check composes it first the launcher (and the sweeper's own validation) get
that composition (harness.config.composition). The checks' own cost is the rest
of check_sweep_jobs: ``added`` = check_sweep_jobs - composing the jobs. Compared with the demo
sweep's cold and warm times from benchmarks/results/demo_sweep.json when `make bench` wrote it.

    python benchmarks/start_checks.py --repeats 5
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

from hydra import initialize_config_dir
from hydra.core.global_hydra import GlobalHydra
from hydra.types import RunMode

from harness.config import register
from harness.config.checks import check_config
from harness.config.resolvers import PROJECT_ROOT
from harness.config.secrets import redact_text
from harness.jobs import check_sweep_jobs, sweep_job_overrides

RESULTS = Path(__file__).resolve().parent / "results"


def timed(run, repeats: int) -> dict[str, float]:
    """Median wall and CPU seconds (CPU time says what the checks cost on a machine shared with others)."""
    wall, cpu = [], []
    for _ in range(repeats):
        start, start_cpu = time.perf_counter(), time.process_time()
        run()
        wall.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
    return {"wall": round(statistics.median(wall), 3), "cpu": round(statistics.median(cpu), 3)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    register()
    with initialize_config_dir(version_base="1.3", config_dir=str(PROJECT_ROOT / "conf")):
        loader = GlobalHydra.instance().config_loader()
        config = loader.load_configuration("config", ["experiment=demo_sweep"], RunMode.MULTIRUN)
        compose = loader.load_sweep_config  # Hydra's own, before the check shares its compositions
        jobs = check_sweep_jobs(config)  # warm: imports and the first dataset load are paid once, as in a run

        def check_with_fresh_compositions() -> None:
            loader.load_sweep_config = compose
            check_sweep_jobs(config)

        overrides = sweep_job_overrides(config)
        composing = timed(lambda: [compose(config, job) for job in overrides], args.repeats)
        checking = timed(check_with_fresh_compositions, args.repeats)
        figures = {
            "jobs": jobs,
            "check_config_seconds": timed(lambda: check_config(config), args.repeats),
            "compose_jobs_seconds": composing,
            "check_sweep_jobs_seconds": checking,
            "added_seconds": {k: round(checking[k] - composing[k], 3) for k in ("wall", "cpu")},
        }
    table = (PROJECT_ROOT / "experiments" / "demo").rglob("*.jsonl")
    text = "\n".join(path.read_text(encoding="utf-8") for path in table)
    figures["redact_mb_per_second"] = round(len(text) / 1e6 / timed(lambda: redact_text(text), args.repeats)["cpu"], 1)
    sweep = RESULTS / "demo_sweep.json"
    if sweep.exists():  # `make bench`
        times = json.loads(sweep.read_text())
        added = figures["added_seconds"]["wall"]
        figures["added_over_cold_sweep"] = round(added / times["cold_seconds_median"], 4)
        figures["added_over_warm_sweep"] = round(added / times["warm_seconds_median"], 4)
    figures["command"] = f"python benchmarks/start_checks.py --repeats {args.repeats}"
    print(json.dumps(figures, indent=2))
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "start_checks.json").write_text(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
