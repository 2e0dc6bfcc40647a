"""The same sweep as a grid and as a race: the race's champion against the grid's, and the cost.

    python benchmarks/racing.py                         # the default sweep below, on the demo
    python benchmarks/racing.py --preset answers        # the issue's sweep: local answers on all 86 questions
    python benchmarks/racing.py -- chunker=a,b retriever=x,y race.alpha=0.1   # any sweep
    python benchmarks/racing.py --preset answers --cache DIR   # both modes read and fill one cache:
        # the question-evaluation figures are unchanged, the wall times then measure only what is new
    python benchmarks/racing.py --keep DIR ...           # keep both sweep folders (per-question tables) in DIR
    python benchmarks/racing.py --code /work/main ...    # the race on another checkout's code too (same decisions?)
    python benchmarks/racing.py --preset predictions [--questions 10000] [--quality 0.7 0.65 0.6]
        # three systems' prediction files of very different quality on a large SQuAD-like question set

The ``predictions`` preset writes, in the benchmark's folder, a synthetic SQuAD v1.1 file of
``--questions`` questions (benchmarks/squad_scale.py) and one predictions file per ``--quality``:
each question answered with its gold span with that probability, else with another span of its
paragraph; ``generator=predictions`` scores each file (BM25 over the paragraphs, every answer
metric), the race on ``answer/f1``. Each mode starts cold in its own temporary folder (its own cache and MLflow store), so neither reads
what the other computed. Printed: the grid's champion and the configurations its end-of-sweep
paired tests (stats, Holm-corrected) do not find significantly worse; the race's champion and
whether it is one of those; question-evaluations, wall and CPU time of each, and their ratios.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PRESETS = {
    # Retrieval only: chunk sizes on key-fact coverage (tiny chunks cut the facts apart).
    "chunking": ["chunker.size=12,16,24,48,96,192", "chunker.overlap=2",
                 "stats.primary.name=key_facts/coverage_exact"],
    # The sweep: every question answered by the embedded SmolLM2, with 0 or 2 retrieved chunks.
    "answers": ["chunker=fixed_tokens,recursive", "retriever=bm25,dense", "generation.contexts=0,2",
                "generator=local", "generator.max_new_tokens=32", "stats.primary.name=answer/f1"],
}


def prediction_files(folder: Path, questions: int, qualities: list[float], seed: int = 0) -> list[str]:
    """Writes the ``predictions`` preset's data into ``folder``; returns the sweep's arguments."""
    import random

    sys.path.insert(0, str(ROOT / "benchmarks"))
    from squad_scale import synthetic_squad

    dataset, _ = synthetic_squad(questions, max(1, questions // 5), 48, seed)
    (folder / "dev.json").write_text(json.dumps(dataset))
    paths = []
    for number, quality in enumerate(qualities):
        rng, answers = random.Random(seed + 1 + number), {}
        for article in dataset["data"]:
            for paragraph in article["paragraphs"]:
                words = paragraph["context"].split()
                for qa in paragraph["qas"]:
                    start = rng.randrange(len(words) - 6)
                    wrong = " ".join(words[start:start + rng.randint(1, 5)])
                    answers[qa["id"]] = qa["answers"][0]["text"] if rng.random() < quality else wrong
        path = folder / f"system_{number}_{quality:g}.json"
        path.write_text(json.dumps(answers))
        paths.append(str(path))
    return ["dataset=squad", f"dataset.path={folder / 'dev.json'}", "generator=predictions",
            f"generator.path={','.join(paths)}", "stats.primary.name=answer/f1"]


def run(folder: Path, arguments: list[str], cache: Path | None = None, code: Path | None = None) -> tuple[float, float]:
    """(wall, CPU) seconds of one sweep in ``folder`` (``code``: another checkout's code on the path);
    exits with its error when it fails."""
    start, cpu = time.perf_counter(), _children_cpu()
    done = subprocess.run([sys.executable, "-m", "harness", "-m", *arguments,
                           f"tracking.tracking_uri=sqlite:///{folder / 'mlflow.db'}",
                           f"tracking.artifact_location={folder / 'mlruns'}",
                           f"cache.dir={cache or folder / 'cache'}", f"hydra.sweep.dir={folder / 'sweep'}"],
                          cwd=folder, capture_output=True, text=True,
                          env={**os.environ, "HF_HUB_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false",
                               **({"PYTHONPATH": str(code)} if code else {})})
    if done.returncode != 0:
        sys.exit(f"sweep failed ({' '.join(arguments)}):\n{done.stderr[-3000:]}")
    return time.perf_counter() - start, _children_cpu() - cpu


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def grid_verdicts(sweep: Path) -> tuple[str, list[str], int]:
    """The grid's champion, the runs not significantly worse than it (champion first), and the runs."""
    runs = [row["run"] for row in csv.DictReader((sweep / "leaderboard.csv").open()) if row["status"] == "FINISHED"]
    verdicts = {row["challenger"]: row["winner"] for row in csv.DictReader((sweep / "stats_verdicts.csv").open())}
    champion = next(name for name in runs if name not in verdicts)
    return champion, [champion, *(n for n, winner in verdicts.items() if winner != "champion")], len(runs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--preset", choices=sorted([*PRESETS, "predictions"]), default="chunking")
    parser.add_argument("--questions", type=int, default=10000, help="the predictions preset's questions")
    parser.add_argument("--quality", type=float, nargs="+", default=[0.7, 0.65, 0.6],
                        help="the predictions preset's systems: each one's share of gold answers")
    parser.add_argument("sweep", nargs="*", help="the sweep's own arguments (instead of the preset)")
    parser.add_argument("--cache", type=Path, help="one cache for both modes (default: a cold one each)")
    parser.add_argument("--keep", type=Path, help="a new folder to keep both sweeps in (default: a temporary one)")
    parser.add_argument("--code", type=Path, help="also race with another checkout's code (e.g. /work/main), after the grid")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args()
    sweep = args.sweep or PRESETS.get(args.preset, [])
    if args.keep is not None and args.keep.exists():
        sys.exit(f"--keep {args.keep}: the folder exists; name a new one")
    with tempfile.TemporaryDirectory(prefix="racing-bench-") as tmp:
        folder = args.keep.resolve() if args.keep is not None else Path(tmp)
        grid_dir, race_dir = folder / "grid", folder / "race"
        grid_dir.mkdir(parents=True)
        race_dir.mkdir()
        if args.preset == "predictions":
            sweep = [*prediction_files(folder, args.questions, args.quality), *sweep]
        cache = args.cache.resolve() if args.cache else None
        grid_seconds, grid_cpu = run(grid_dir, sweep, cache)
        race_seconds, race_cpu = run(race_dir, ["hydra/sweeper=racing", *sweep], cache)
        baseline = None
        if args.code is not None:  # the same race on the other code, in a folder of its own
            (folder / "race_baseline").mkdir()
            baseline = run(folder / "race_baseline", ["hydra/sweeper=racing", *sweep], cache, args.code.resolve())
            same = json.loads((folder / "race_baseline" / "sweep" / "race.json").read_text())
        champion, equal, configurations = grid_verdicts(grid_dir / "sweep")
        record = json.loads((race_dir / "sweep" / "race.json").read_text())
        total = record["total_questions"]
    grid_evaluations = configurations * total
    figures = {
        "sweep": " ".join(sweep), "configurations": configurations, "questions": total,
        "grid_champion": champion, "grid_not_significantly_worse": equal,
        "race_rule": record.get("rule", ""),
        "race_champion": record["champion"], "race_champion_in_set": record["champion"] in equal,
        "race_rounds": len(record["rounds"]),
        "eliminated": {e["name"]: f"round {e['round']} ({e['questions']} questions)"
                       for r in record["rounds"] for e in r["eliminated"]},
        "grid_evaluations": grid_evaluations, "race_evaluations": record["evaluations"],
        "evaluations_ratio": round(record["evaluations"] / grid_evaluations, 3),
        "grid_seconds": round(grid_seconds, 1), "race_seconds": round(race_seconds, 1),
        "seconds_ratio": round(race_seconds / grid_seconds, 3),
        "grid_cpu_seconds": round(grid_cpu, 1), "race_cpu_seconds": round(race_cpu, 1),
        "cpu_ratio": round(race_cpu / grid_cpu, 3),
        "shared_cache": str(args.cache) if args.cache else None, "load_average": os.getloadavg(),
    }
    if baseline is not None:
        figures.update({"baseline_code": str(args.code), "baseline_race_seconds": round(baseline[0], 1),
                        "baseline_race_cpu_seconds": round(baseline[1], 1),
                        "baseline_seconds_ratio": round(baseline[0] / grid_seconds, 3),
                        "baseline_same_decisions": same["rounds"] == record["rounds"]})
    for key, value in figures.items():
        print(f"{key}: {value}")
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2) + "\n")
    out = ROOT / "benchmarks" / "results"
    out.mkdir(parents=True, exist_ok=True)
    (out / f"racing_{args.preset if not args.sweep else 'custom'}.json").write_text(json.dumps(figures, indent=2) + "\n")


if __name__ == "__main__":
    main()
