"""The reranker stage on BEIR SciFact (test split): first stage vs every embedded reranking.

    python benchmarks/rerank.py --path ../shared/data/beir-scifact [--queries 20] [--candidates 20]

For bm25, dense and hybrid it reports, on all 300 test queries, the first stage's nDCG@10,
Recall@100 and search seconds per query; then, on a seeded sample of ``--queries`` queries (an LLM
reranker on a CPU scores about one passage-query pair per second), nDCG@10 of the first stage and of
every ``reranker=llm`` mode (query likelihood, yes/no) with every fusion (replace, interpolate,
rrf) over its top ``--candidates``, with the pairs scored per second. Reranker scores are cached
per (model, query, passage), so the fusions and retrievers that share candidates reuse them: the
pairs/s figure is the first fresh scoring's. Published: BM25 0.665 and BM25 top-100 reranked by a
MiniLM cross-encoder 0.688 (BEIR paper, Thakur et al. 2021).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import time
from dataclasses import replace
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from hydra import compose, initialize_config_dir  # noqa: E402

from harness.cache import DiskCache  # noqa: E402
from harness.config import register  # noqa: E402
from harness.jobs import build_job  # noqa: E402
from harness.stages.pipeline import run_pipeline  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
RETRIEVERS = ("bm25", "dense", "hybrid")
MODES = ("query_likelihood", "yes_no")
FUSIONS = ("replace", "interpolate", "rrf")
PUBLISHED = {"bm25": 0.665, "bm25 + MiniLM cross-encoder (top 100)": 0.688}


def run(path: str, cache_dir: str, overrides: list[str], sample: list[int] | None = None):
    with initialize_config_dir(version_base="1.3", config_dir=str(ROOT / "conf")):
        cfg = compose("config", overrides=["experiment=scifact", f"dataset.path={path}", f"cache.dir={cache_dir}",
                                           "tracking=none", *overrides])
    job = build_job(cfg)
    dataset = job.dataset if sample is None else replace(
        job.dataset, questions=tuple(job.dataset.questions[i] for i in sample))
    start = time.perf_counter()
    result = run_pipeline(dataset, job.chunker, job.retriever, job.suites, DiskCache(cache_dir), reranker=job.reranker)
    return result, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--path", required=True, help="BEIR SciFact folder")
    parser.add_argument("--queries", type=int, default=20, help="seeded sample of test queries for the rerankers")
    parser.add_argument("--candidates", type=int, default=20)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--retrievers", default=",".join(RETRIEVERS))
    parser.add_argument("--modes", default=",".join(MODES))
    parser.add_argument("--cache-dir", default=str(ROOT / ".cache" / "harness"))
    args = parser.parse_args()
    register()
    report = {"command": f"python benchmarks/rerank.py --path {args.path} --queries {args.queries} "
                         f"--candidates {args.candidates}", "published_ndcg_at_10": PUBLISHED, "retrievers": {}}
    for retriever in args.retrievers.split(","):
        full, seconds = run(args.path, args.cache_dir, [f"retriever={retriever}"])
        count = len(full.rows)
        sample = sorted(random.Random(args.seed).sample(range(count), min(args.queries, count)))
        row = {"all_queries": {"queries": count, "ndcg_at_10": round(full.metrics["retrieval/ndcg_at_10"], 4),
                               "recall_at_100": round(full.metrics["retrieval/recall_at_100"], 4),
                               "search_seconds_per_query": round(full.info["seconds"]["search"] / count, 5)},
               "sample": {"queries": len(sample)}}
        for mode in args.modes.split(","):
            for fusion in FUSIONS:
                result, seconds = run(args.path, args.cache_dir, [
                    f"retriever={retriever}", "reranker=llm", f"reranker.mode={mode}", f"reranker.fusion={fusion}",
                    f"reranker.candidates={args.candidates}", f"reranker.top_k={args.candidates}"], sample)
                metrics = result.metrics
                row["sample"]["first_stage_ndcg_at_10"] = round(metrics["first_stage/ndcg_at_10"], 4)
                figures = {"ndcg_at_10": round(metrics["retrieval/ndcg_at_10"], 4),
                           "delta": round(metrics["retrieval/ndcg_at_10"] - metrics["first_stage/ndcg_at_10"], 4),
                           "rerank_seconds_per_query": round(metrics["rerank/seconds_per_query"], 3),
                           "pairs_scored": int(metrics["rerank/pairs_scored"])}
                if "rerank/pairs_per_second" in metrics and metrics["rerank/pairs_scored"] >= 20:
                    figures["pairs_per_second"] = round(metrics["rerank/pairs_per_second"], 3)
                row["sample"][f"llm/{mode}/{fusion}"] = figures
                print(retriever, mode, fusion, json.dumps(figures), flush=True)
        report["retrievers"][retriever] = row
        print(retriever, json.dumps(row), flush=True)
    out = ROOT / "benchmarks" / "results" / "rerank.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=2))
    print(f"written: {out}")


if __name__ == "__main__":
    main()
