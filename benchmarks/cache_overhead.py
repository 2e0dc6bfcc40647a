"""What checksummed, pickle-free cache entries cost against the pickles they replaced.

    python benchmarks/cache_overhead.py --repeats 5

Builds entries of the sizes `make run`'s sweep stores, from the demo dataset: its chunks (the
fixed_tokens chunker), a bm25s index of them, dense corpus and query embeddings (float32, 384
dimensions), and answers and judgements. Each kind is written and read back through
:class:`harness.cache.DiskCache` (JSON / .npy / bm25s files + SHA256SUMS, verified on read) and
through the former layout (one pickle per entry; bm25s's own files, unverified). Reported:
median seconds per write and per read of each kind, and the extra seconds of the sweep's cache
reads and writes (per-kind counts for its 9 jobs below), to set against the sweep's wall time.
"""

from __future__ import annotations

import argparse
import json
import pickle
import statistics
import sys
import tempfile
import time
from dataclasses import asdict
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from hydra import compose, initialize_config_dir  # noqa: E402
from hydra.utils import instantiate  # noqa: E402

from harness.cache import ARRAY, DiskCache  # noqa: E402
from harness.chunkers.base import CHUNKS_CODEC  # noqa: E402
from harness.config import register  # noqa: E402
from harness.generators.base import Generation  # noqa: E402
from harness.generators.cached import GENERATION_CODEC  # noqa: E402
from harness.judges.judgement import Judgement  # noqa: E402
from harness.retrievers.bm25 import BM25_CODEC  # noqa: E402
from harness.stages.judging import JUDGEMENT_CODEC  # noqa: E402

# Entries one demo sweep (9 jobs: 3 chunkers x bm25/dense/hybrid, 8 questions x 2 conditions
# answered and judged per job) reads on its warm re-run.
SWEEP_COUNTS = {"chunks": 9, "bm25": 6, "dense_corpus": 6, "dense_queries": 6, "generation": 144, "judgement": 144}


def entries() -> dict[str, tuple[object, object]]:
    """kind -> (value, codec), at demo sizes."""
    register()
    with initialize_config_dir(version_base="1.3", config_dir=str(ROOT / "conf")):
        cfg = compose("config", overrides=["dataset=demo", "chunker=fixed_tokens", "retriever=bm25"])
    dataset = instantiate(cfg.dataset)
    chunks = instantiate(cfg.chunker).chunk(dataset.documents)
    retriever = instantiate(cfg.retriever)
    retriever.index(chunks, "bench", DiskCache("/nonexistent", enabled=False))
    rng = np.random.default_rng(0)
    generation = Generation(text="Access tokens expire after 3600 seconds. " * 3, input_tokens=412,
                            output_tokens=32, ttft_seconds=0.41, latency_seconds=1.9, extra={"finish_reason": "stop"})
    judgement = Judgement(score=7.4, argmax=8.0, raw="8", detail={"judge": "local:SmolLM2", "candidate_mass": {
        "score": 0.93}, "probabilities": {"score": {str(v): round(1 / 11, 6) for v in range(11)}}})
    return {
        "chunks": (chunks, CHUNKS_CODEC),
        "bm25": (retriever._index, BM25_CODEC),
        "dense_corpus": (rng.standard_normal((len(chunks), 384)).astype(np.float32), ARRAY),
        "dense_queries": (rng.standard_normal((len(dataset.questions), 384)).astype(np.float32), ARRAY),
        "generation": (generation, GENERATION_CODEC),
        "judgement": (judgement, JUDGEMENT_CODEC),
    }


def timed(action) -> float:
    start = time.perf_counter()
    action()
    return time.perf_counter() - start


def pickled(kind: str, value, codec, folder: Path) -> tuple[float, float]:
    """The former layout: a pickle file (bm25s: its own files, no checksum)."""
    target = folder / kind
    if kind == "bm25":
        return timed(lambda: codec.save(value, target)), timed(lambda: codec.load(target))
    return (timed(lambda: target.write_bytes(pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL))),
            timed(lambda: pickle.loads(target.read_bytes())))


def checksummed(kind: str, value, codec, folder: Path) -> tuple[float, float]:
    cache = DiskCache(folder)
    write = timed(lambda: cache.put(kind, "key", value, codec))
    read = timed(lambda: cache.get(kind, "key", codec))
    assert cache.stats[f"{kind}/hit"] == 1
    return write, read


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    report: dict[str, dict] = {}
    for kind, (value, codec) in entries().items():
        times = {"pickle": [], "checksummed": []}
        for _ in range(args.repeats):
            for name, store in (("pickle", pickled), ("checksummed", checksummed)):
                with tempfile.TemporaryDirectory() as tmp:
                    (Path(tmp) / "bm25").mkdir()
                    times[name].append(store(kind, value, codec, Path(tmp)))
        report[kind] = {f"{name}_{op}_ms": round(1000 * statistics.median(t[i] for t in runs), 3)
                        for name, runs in times.items() for i, op in enumerate(("write", "read"))}
    extra = {op: sum(SWEEP_COUNTS[k] * (r[f"checksummed_{op}_ms"] - r[f"pickle_{op}_ms"]) for k, r in report.items())
             / 1000 for op in ("write", "read")}
    summary = {"command": f"python benchmarks/cache_overhead.py --repeats {args.repeats}", "per_entry": report,
               "sweep_counts": SWEEP_COUNTS, "sweep_extra_seconds_reads": round(extra["read"], 3),
               "sweep_extra_seconds_writes": round(extra["write"], 3)}
    print(json.dumps(summary, indent=2))
    out = ROOT / "benchmarks" / "results" / "cache_overhead.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(summary, indent=2))


if __name__ == "__main__":
    main()
