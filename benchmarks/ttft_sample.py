"""What ``generation.ttft_sample`` costs: the demo's answering stage for one configuration, all
answers batched vs some decoded alone (for their time to first token).

    python benchmarks/ttft_sample.py --alone 0 2 4 --repeats 3

Runs the demo (``experiment=demo_sweep``, chunker=recursive, retriever=bm25, answers with context
only, no judge) in this process through the Python API, each run on a fresh cache; the model is
loaded by a first run that is not counted. Reported: the median ``time/generate_seconds`` per
``ttft_sample`` value, its ratio to all-batched, and the TTFT percentiles the runs logged.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEMO = ["experiment=demo_sweep", "hydra.mode=RUN", "chunker=recursive", "retriever=bm25", "judge=none",
        "generation.conditions=[with_context]", "tracking=none"]


def answering_seconds(alone: int, folder: Path) -> dict[str, float]:
    from harness.api import evaluate

    result = evaluate([*DEMO, f"generation.ttft_sample={alone}", f"cache.dir={folder / 'cache'}",
                       f"hydra.run.dir={folder / 'run'}"])
    info = json.loads((result.output_dir / "metrics.json").read_text())["info"]
    return {"time/generate_seconds": info["seconds"]["generate"],
            **{key: value for key, value in result.metrics.items()
               if key in ("generation/ttft_p50_seconds", "generation/ttft_p95_seconds")}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--alone", type=int, nargs="+", default=[0, 2, 4])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    os.environ.update(HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1", TOKENIZERS_PARALLELISM="false")
    os.chdir(ROOT)
    figures: dict[int, list[dict[str, float]]] = {k: [] for k in args.alone}
    with tempfile.TemporaryDirectory(prefix="harness-ttft-") as tmp:
        answering_seconds(0, Path(tmp) / "warm-up")  # loads the model and the encoder once
        for repeat in range(args.repeats):
            for alone in args.alone:  # interleaved: a change in the machine's load hits every setting
                figures[alone].append(answering_seconds(alone, Path(tmp) / f"{repeat}-{alone}"))
                print(f"repeat {repeat + 1}, ttft_sample={alone}: {figures[alone][-1]}", flush=True)
    base = statistics.median(f["time/generate_seconds"] for f in figures[args.alone[0]])
    report = {"command": f"python benchmarks/ttft_sample.py --alone {' '.join(map(str, args.alone))} "
                         f"--repeats {args.repeats}",
              "settings": {}}
    for alone, runs in figures.items():
        seconds = statistics.median(f["time/generate_seconds"] for f in runs)
        row = {"generate_seconds_median": round(seconds, 2), "ratio_to_first": round(seconds / base, 2)}
        for key in ("generation/ttft_p50_seconds", "generation/ttft_p95_seconds"):
            if all(key in f for f in runs):
                row[key + "_median"] = round(statistics.median(f[key] for f in runs), 3)
        report["settings"][f"ttft_sample={alone}"] = row
    print(json.dumps(report, indent=2))
    out = ROOT / "benchmarks" / "results" / "ttft_sample.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
