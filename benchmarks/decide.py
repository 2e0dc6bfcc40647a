"""How fast ``harness.api.decide`` decides: enough to simulate with.

Seeded scores of C configurations x N questions, decided ``--repeats`` times per setting (the first
call, which imports and warms up, untimed): ``test`` t, wilcoxon and permutation without costs, and
t with a per-question cost (the front: a second family of every pair, then the paired bootstrap of
each axis). Printed and written to ``results/decide.json``: median wall and CPU milliseconds a call.

    python benchmarks/decide.py --configurations 100 --questions 200 --repeats 20
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from harness.api import decide  # noqa: E402

RESULTS = Path(__file__).resolve().parent / "results"


def timed(call, repeats: int) -> dict[str, float]:
    call()  # untimed: imports, first allocations
    walls, cpus = [], []
    for _ in range(repeats):
        start, start_cpu = time.perf_counter(), time.process_time()
        call()
        walls.append(time.perf_counter() - start)
        cpus.append(time.process_time() - start_cpu)
    return {"wall_ms": round(1000 * statistics.median(walls), 2), "cpu_ms": round(1000 * statistics.median(cpus), 2)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--configurations", type=int, default=100)
    parser.add_argument("--questions", type=int, default=200)
    parser.add_argument("--front-configurations", type=int, default=10, help="configurations of the setting with costs")
    parser.add_argument("--repeats", type=int, default=20)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    values = {f"c{i}": rng.uniform(0.2, 0.8, args.questions) for i in range(args.configurations)}
    few = dict(list(values.items())[:args.front_configurations])
    costs = {"usd": {name: rng.uniform(0.5, 1.5, args.questions) for name in few}}
    figures = {f"{test}, {args.configurations} x {args.questions}": timed(lambda t=test: decide(values, test=t), args.repeats)
               for test in ("t", "wilcoxon", "permutation")}
    figures[f"t with costs (front), {args.front_configurations} x {args.questions}"] = \
        timed(lambda: decide(few, costs=costs), max(3, args.repeats // 4))
    for setting, figure in figures.items():
        print(f"{setting:40} median {figure['wall_ms']:8.1f} ms wall, {figure['cpu_ms']:8.1f} ms CPU")
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "decide.json").write_text(json.dumps({"args": vars(args), **figures}, indent=2) + "\n")


if __name__ == "__main__":
    main()
