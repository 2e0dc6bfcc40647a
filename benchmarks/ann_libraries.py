"""Which ANN library backs ``retriever.index=hnsw``: faiss-cpu, hnswlib and usearch on the same vectors.

Synthetic, seeded, clustered unit vectors (dimension 384, like all-MiniLM-L6-v2); each library
builds an HNSW graph with the same parameters (M=32, efConstruction=200, efSearch=128), then
answers 1,000 queries; recall@10 is against exact inner-product search.

    .venv/bin/python benchmarks/ann_libraries.py --size 100000
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np


def synthetic_vectors(size: int, dim: int, seed: int, clusters: int = 1000) -> np.ndarray:
    """Unit vectors scattered around ``clusters`` random centres (embeddings are clustered, not uniform)."""
    rng = np.random.default_rng(seed)
    centres = rng.standard_normal((clusters, dim)).astype(np.float32)
    vectors = centres[rng.integers(0, clusters, size)] + 0.6 * rng.standard_normal((size, dim)).astype(np.float32)
    return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


def exact_top(corpus: np.ndarray, queries: np.ndarray, k: int) -> np.ndarray:
    scores = queries @ corpus.T
    return np.argsort(-scores, axis=1)[:, :k]


def recall(found: np.ndarray, truth: np.ndarray) -> float:
    return float(np.mean([len(set(a) & set(b)) / len(b) for a, b in zip(found, truth)]))


def run_faiss(corpus, queries, k, m, ef_construction, ef_search):
    import faiss

    index = faiss.IndexHNSWFlat(corpus.shape[1], m, faiss.METRIC_INNER_PRODUCT)
    index.hnsw.efConstruction = ef_construction
    start = time.perf_counter()
    index.add(corpus)
    built = time.perf_counter() - start
    index.hnsw.efSearch = ef_search
    start = time.perf_counter()
    _, ids = index.search(queries, k)
    return built, time.perf_counter() - start, ids


def run_hnswlib(corpus, queries, k, m, ef_construction, ef_search):
    import hnswlib

    index = hnswlib.Index(space="ip", dim=corpus.shape[1])
    index.init_index(max_elements=len(corpus), M=m, ef_construction=ef_construction, random_seed=0)
    start = time.perf_counter()
    index.add_items(corpus, np.arange(len(corpus)))
    built = time.perf_counter() - start
    index.set_ef(ef_search)
    start = time.perf_counter()
    ids, _ = index.knn_query(queries, k=k)
    return built, time.perf_counter() - start, ids


def run_usearch(corpus, queries, k, m, ef_construction, ef_search):
    from usearch.index import Index

    index = Index(ndim=corpus.shape[1], metric="ip", dtype="f32", connectivity=m,
                  expansion_add=ef_construction, expansion_search=ef_search)
    start = time.perf_counter()
    index.add(np.arange(len(corpus)), corpus)
    built = time.perf_counter() - start
    start = time.perf_counter()
    matches = index.search(queries, k)
    return built, time.perf_counter() - start, np.asarray(matches.keys)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=1000)
    parser.add_argument("--dim", type=int, default=384)
    parser.add_argument("--m", type=int, default=32)
    parser.add_argument("--ef-construction", type=int, default=200)
    parser.add_argument("--ef-search", type=int, default=128)
    args = parser.parse_args()
    # Queries come from the same distribution as the passages (the last rows, not indexed).
    vectors = synthetic_vectors(args.size + args.queries, args.dim, seed=0)
    corpus, queries = vectors[:args.size], vectors[args.size:]
    truth = exact_top(corpus, queries, 10)
    results = {}
    for name, run in (("faiss-cpu", run_faiss), ("hnswlib", run_hnswlib), ("usearch", run_usearch)):
        built, searched, ids = run(corpus, queries, 10, args.m, args.ef_construction, args.ef_search)
        results[name] = {"build_seconds": round(built, 1), "recall_at_10": round(recall(ids, truth), 4),
                         "ms_per_query": round(1000 * searched / len(queries), 3)}
        print(name, json.dumps(results[name]), flush=True)
    print(json.dumps({"size": args.size, "dim": args.dim, "results": results}, indent=1))


if __name__ == "__main__":
    main()
