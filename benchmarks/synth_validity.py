"""Do synthetic questions rank a sweep's configurations as real questions do? (issue 38)

    python benchmarks/synth_validity.py --scifact ../shared/data/beir-scifact --scifact-docs 1500 \
        --llm-questions 24 --llm-pool 48 [--corpora demo scifact] [--json FILE]

For each corpus (the demo: 86 human questions; SciFact: the 300 test claims with judged abstracts) it
writes a pool of cloze questions and one of llm questions (the embedded SmolLM2) from the same corpus
with every filter's scores (``Synthesizer.pool``), and chooses sets from each pool: no filter, each
filter alone, all of them (``harness.synth.selection``). It runs the same retrieval sweep on the human
set and on every synthetic set (one pipeline run per configuration over all the sets' questions
together: retrieval is scored per question) and reports, per set, against the human set: Kendall's
tau between the configurations' means of the primary metric, the share of configuration pairs whose
verdict (better, tied, worse: the stats group's paired test, correction and winner rule) agrees,
how many are opposite, and how far the mean moves. Two seeded halves of the human set, one against
the other, show how far real questions agree with themselves.

Demo sweep: chunker fixed_tokens / recursive / markdown_sections x retriever bm25 / dense / hybrid,
retrieval/ndcg_at_5 (experiment=demo_sweep's). SciFact: whole abstracts / 256 / 128-token chunks x
bm25 / dense / hybrid, retrieval/ndcg_at_10 (experiment=scifact's), over the judged abstracts of the
300 claims and seeded other abstracts up to --scifact-docs (all 5,183: --scifact-docs 0).
Questions are written from the passages of the default chunker of each (fixed_tokens 128; whole
abstracts). Pools, per-question tables and figures go to benchmarks/results/synth_validity/.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import time
import sys
from dataclasses import dataclass, replace
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

from hydra.utils import instantiate  # noqa: E402

from harness.cache import DiskCache  # noqa: E402
from harness.cli.compose import compose  # noqa: E402
from harness.cli.synth import compose_synth  # noqa: E402
from harness.data.records import Dataset, Question  # noqa: E402
from harness.stages.pipeline import run_pipeline  # noqa: E402
from harness.synth import corpus as passages_of  # noqa: E402
from harness.synth.agreement import agreement, mean_of  # noqa: E402
from harness.synth.output import question_line, summary, write_set  # noqa: E402
from harness.synth.records import Scored, Tools  # noqa: E402
from harness.synth.selection import select  # noqa: E402
from harness.synth.synthesizer import Synthesizer  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
RETRIEVERS = ("bm25", "dense", "hybrid")


@dataclass
class Corpus:
    name: str
    base: list[str]                 # overrides every configuration shares
    grid: dict[str, list[str]]      # configuration name -> its overrides
    metric: str
    writing: list[str]              # the chunker the questions are written from
    human: Dataset | None = None


def corpora(args) -> list[Corpus]:
    found = []
    if "demo" in args.corpora:
        found.append(Corpus("demo", ["dataset=demo", "metrics=[retrieval]"], {
            f"{chunker}+{retriever}": [f"chunker={chunker}", f"retriever={retriever}"]
            for chunker in ("fixed_tokens", "recursive", "markdown_sections") for retriever in RETRIEVERS},
            "retrieval/ndcg_at_5", []))
    if "scifact" in args.corpora:
        sizes = {"abstract": ["chunker=none"], "256tok": ["chunker=fixed_tokens", "chunker.size=256"],
                 "128tok": ["chunker=fixed_tokens", "chunker.size=128"]}
        found.append(Corpus("scifact", ["experiment=scifact", f"dataset.path={args.scifact}", "metrics=[retrieval]"], {
            f"{size}+{retriever}": [*overrides, f"retriever={retriever}"]
            for size, overrides in sizes.items() for retriever in RETRIEVERS}, "retrieval/ndcg_at_10", ["chunker=none"]))
    for item in found:
        item.human = instantiate(compose(item.base).dataset)
        if item.name == "scifact" and args.scifact_docs:
            item.human = subset(item.human, args.scifact_docs, args.seed)
    return found


def subset(dataset: Dataset, size: int, seed: int) -> Dataset:
    """Every judged document of the questions, then seeded others up to ``size`` documents."""
    judged = {doc for q in dataset.questions for doc in q.relevant}
    others = [d.id for d in dataset.documents if d.id not in judged]
    keep = judged | set(random.Random(seed).sample(others, max(0, min(len(others), size - len(judged)))))
    return replace(dataset, documents=tuple(d for d in dataset.documents if d.id in keep),
                   sha256=f"{dataset.sha256}:subset{size}:{seed}")


def pool(kind: str, item: Corpus, size: int, args, out: Path) -> tuple[list[Scored], object]:
    """``size`` written candidates of ``kind`` from ``item``'s documents, every filter scored, none applied."""
    cfg = compose_synth(kind, [*item.base, *item.writing, "retriever=bm25", f"cache.dir={args.cache_dir}",
                               "synth.max_failed_fraction=1.0", f"seed={args.seed}"])
    settings, cache = instantiate(cfg.synth), DiskCache(args.cache_dir)
    chunker = instantiate(cfg.chunker)
    chunks = passages_of.passages(item.human, chunker, cache)
    generator = instantiate(cfg.generator)
    tools = Tools(cache=cache, chunks=chunks, generator=generator if generator.enabled else None,
                  prompt=instantiate(cfg.prompt), retriever=passages_of.index(instantiate(cfg.retriever), chunks, cache))
    start = time.perf_counter()
    outcome = Synthesizer(settings, tools).pool(size)
    seconds = time.perf_counter() - start
    lines = [question_line(n, s, settings, tools, item.name) for n, s in enumerate(outcome.kept, start=1)]
    facts = {**summary(outcome, settings, tools, item.name, chunker.fingerprint()), "complete": True, "seconds": seconds}
    write_set(out / f"{item.name}_{kind}_pool.jsonl", lines, facts)
    print(f"{item.name} {kind}: pool of {len(outcome.kept)} in {seconds:.0f} s "
          f"({outcome.tried} passages tried, writes failed: {outcome.writes.failed})", flush=True)
    return outcome.kept, settings


def variants(kind: str, candidates: list[Scored], settings, n: int) -> dict[str, list[Question]]:
    """Sets of up to ``n`` from the pool: no filter, each filter alone, all of them."""
    names = [f.name for f in settings.enabled_filters()]
    duplicates = settings.duplicates
    vectors = duplicates.vectors([s.candidate.question for s in candidates])
    ids = {id(s): f"{kind}_{index:04d}" for index, s in enumerate(candidates)}
    choices = {"none": [], **{name: [name] for name in [*names, duplicates.name]}, "all": [*names, duplicates.name]}
    sets = {}
    for label, chosen in choices.items():
        picked = select(candidates, [c for c in chosen if c != duplicates.name], n,
                        duplicates if duplicates.name in chosen else None, vectors)
        sets[f"{kind}/{label}"] = [question(ids[id(s)], s) for s in picked]
    return sets


def question(qid: str, scored: Scored) -> Question:
    candidate = scored.candidate
    return Question(id=qid, text=candidate.question, relevant={p.doc_id: 1 for p in candidate.passages},
                    ground_truth=candidate.answer, answers=(candidate.answer,))


def sweep(item: Corpus, questions: list[Question], args) -> dict[str, dict[str, dict]]:
    """Per configuration, question id -> its per-question row, every set's questions in one run."""
    merged = replace(item.human, questions=tuple(questions))
    rows = {}
    for name, overrides in item.grid.items():
        start = time.perf_counter()
        cfg = compose([*item.base, *overrides, f"cache.dir={args.cache_dir}"])
        suites = {key: instantiate(node) for key, node in cfg.metrics.items()}
        result = run_pipeline(merged, instantiate(cfg.chunker), instantiate(cfg.retriever), suites,
                              DiskCache(args.cache_dir))
        rows[name] = {row["question_id"]: row for row in result.rows}
        print(f"  {item.name} {name}: {len(result.rows)} questions in {time.perf_counter() - start:.0f} s", flush=True)
    return rows


def report(item: Corpus, sets: dict[str, list[Question]], rows, args) -> list[dict]:
    stats = instantiate(compose([*item.base, f"stats.primary.name={item.metric}"]).stats)

    def tables(questions):
        return {name: [rows[name][q.id] for q in questions] for name in item.grid}

    human = list(item.human.questions)
    halves = list(human)
    random.Random(args.seed).shuffle(halves)
    first, second = halves[:len(halves) // 2], halves[len(halves) // 2:]
    lines = []
    for label, (reference, questions) in {"human half B vs half A": (first, second),
                                          **{name: (human, qs) for name, qs in sets.items()}}.items():
        if len(questions) < 2:
            lines.append({"corpus": item.name, "set": label, "n": len(questions)})
            continue
        found = agreement(tables(reference), tables(questions), item.metric, stats)
        lines.append({"corpus": item.name, "set": label, "n": len(questions), "tau": found.tau, "tau_p": found.tau_p,
                      "pairs": found.pairs, "agreeing": found.agreeing, "agreement": found.agreement,
                      "opposed": found.opposed, "decisive_in_reference": found.decisive,
                      "decisive_agreeing": found.decisive_agreeing,
                      "shift": found.shift, "abs_shift": found.abs_shift,
                      "means": {k: [round(a, 4), round(b, 4)] for k, (a, b) in found.means.items()}})
    return lines


def print_table(lines: list[dict], metric: str) -> None:
    print(f"\n| set | n | Kendall tau | verdicts agreeing | of the reference's decisive ones | opposite "
          f"| mean {metric} shift | mean abs shift |")
    print("|---|---|---|---|---|---|---|---|")
    for line in lines:
        if "tau" not in line:
            print(f"| {line['set']} | {line['n']} | - | - | - | - | - | - |")
            continue
        tau = "n/a" if line["tau"] is None else f"{line['tau']:.3f}"
        print(f"| {line['set']} | {line['n']} | {tau} | {line['agreeing']}/{line['pairs']} = {line['agreement']:.2f} "
              f"| {line['decisive_agreeing']}/{line['decisive_in_reference']} | {line['opposed']} "
              f"| {line['shift']:+.3f} | {line['abs_shift']:.3f} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpora", nargs="+", default=["demo", "scifact"], choices=["demo", "scifact"])
    parser.add_argument("--scifact", default=str(ROOT.parent / "shared" / "data" / "beir-scifact"))
    parser.add_argument("--scifact-docs", type=int, default=1500, help="documents kept (0: all 5,183)")
    parser.add_argument("--llm-questions", type=int, default=24, help="questions per llm set")
    parser.add_argument("--llm-pool", type=int, default=48, help="llm candidates written and scored")
    parser.add_argument("--cloze-pool-factor", type=float, default=2.0, help="cloze pool = this x the human set")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--cache-dir", default=str(ROOT / ".cache" / "harness"))
    parser.add_argument("--json", type=Path, default=ROOT / "benchmarks" / "results" / "synth_validity.json")
    args = parser.parse_args()
    out = args.json.parent / "synth_validity"
    out.mkdir(parents=True, exist_ok=True)
    everything = {"command": " ".join(["python benchmarks/synth_validity.py", *sys.argv[1:]]), "corpora": {}}
    for item in corpora(args):
        start = time.perf_counter()
        human_n = len(item.human.questions)
        sets: dict[str, list[Question]] = {}
        for kind, size, n in (("cloze", int(args.cloze_pool_factor * human_n), human_n),
                              ("llm", args.llm_pool, args.llm_questions)):
            candidates, settings = pool(kind, item, size, args, out)
            sets.update(variants(kind, candidates, settings, n))
        unique = {q.id: q for qs in sets.values() for q in qs}
        rows = sweep(item, [*item.human.questions, *unique.values()], args)
        lines = report(item, sets, rows, args)
        print_table(lines, item.metric)
        everything["corpora"][item.name] = {
            "documents": len(item.human.documents), "human_questions": human_n, "metric": item.metric,
            "configurations": list(item.grid), "seconds": round(time.perf_counter() - start, 1), "sets": lines,
            "human_means": {name: round(mean_of([rows[name][q.id] for q in item.human.questions], item.metric), 4)
                            for name in item.grid}}
        args.json.write_text(json.dumps(everything, indent=2, default=str))
    print(f"figures: {args.json}")


if __name__ == "__main__":
    main()
