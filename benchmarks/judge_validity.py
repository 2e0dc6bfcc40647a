"""Every embedded scorer against people: QAGS factual consistency, through `harness meta-eval`.

    python benchmarks/judge_validity.py [--limit 40] [--sets xsum cnndm] [--rubrics ...] [--no-selfcheck]
    python benchmarks/judge_validity.py --limit 60 --rubrics supported --few-shot 2   # few-shot alignment too

For each QAGS set (../shared/data/qags/) the README's recipe (harness.metaeval.qags) writes a
dataset, a predictions file (summary = answer, article = its only context, UniEval's score as
`external/unieval`) and a labels file; one `harness` run scores it with the answer suite's
token-overlap faithfulness and the local judge (SmolLM2-135M) under every rubric given (plus the
combined columns of conf/metrics/combined.yaml whose members the run has, e.g.
`combined/overlap_pmi` = z-mean of overlap and PMI faithfulness), and
`harness meta-eval` correlates every column with the human scores. Printed per scorer and set:
Pearson / Spearman / Kendall and n, beside UniEval on the same rows and the published full-set
figures, plus the judge's items per second. `--limit N` takes the first N rows of each set (the
local judge reads whole articles: all 474 rows took 3 min 52 s on 2 idle cores with bfloat16
units, `dtype: auto`; hours in float32 on cores shared with other work).

Then `harness align` fits a ridge combination of every embedded column (UniEval's `external/*`
left out) to the human scores of each set and of both sets pooled, by nested cross-validation
grouped by summary, and the held-out table is printed: every single column and the combination,
held-out and in-sample Pearson / Spearman with bootstrap CIs. The self-check runs (it measures the
`accuracy_threshold: auto` of each rubric on the set: `judge/<rubric>_threshold`) unless
`--no-selfcheck`.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import subprocess
import sys
import time
from pathlib import Path

from scipy.stats import kendalltau, pearsonr, spearmanr

from harness.metaeval.qags import write_qags_run_inputs

ROOT = Path(__file__).resolve().parents[1]
RUBRICS = ["supported", "likelihood_faithfulness", "pmi_faithfulness", "claims_faithfulness"]
# Rubrics whose score is not one prompted number (read from likelihoods, or a claims procedure): --few-shot skips them.
NOT_PROMPT_SCORES = {"likelihood_faithfulness", "pmi_faithfulness", "claims_faithfulness"}
# The published figures (../shared/data/qags/README.md), all rows: Pearson, Spearman, Kendall.
PUBLISHED = {"xsum": {"UniEval (published)": (0.461376, 0.487920, 0.399218),
                      "token overlap (README baseline)": (0.2969, 0.2989, 0.2481)},
             "cnndm": {"UniEval (published)": (0.681681, 0.662255, 0.531636),
                       "token overlap (README baseline)": (0.3722, 0.1947, 0.1606)}}
STATS = ("pearson", "spearman", "kendall")
CONDITIONAL = "likelihood_faithfulness (PMI's conditional term)"


def harness(*args: str, cwd: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    done = subprocess.run([sys.executable, "-m", "harness", *args], cwd=cwd, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"harness {' '.join(args[:3])} ... failed:\n{done.stderr[-3000:]}")


def measure(name: str, source: Path, folder: Path, limit: int | None, rubrics: list[str], cache: Path,
            selfcheck: bool) -> dict:
    rows = write_qags_run_inputs(source, folder, limit)
    run = folder / "run"
    start = time.perf_counter()
    harness("dataset=questions_jsonl", "dataset.name=qags", f"dataset.questions={folder / 'questions.jsonl'}",
            f"dataset.documents={folder / 'docs'}", "chunker=none", "generator=predictions",
            f"generator.path={folder / 'preds.jsonl'}", "metrics.answer.bertscore=null", "tracking=none",
            # the self-check measures each rubric's accuracy threshold on the set (accuracy_threshold: auto)
            "judge=local", f"judge.selfcheck.enabled={str(selfcheck).lower()}", f"rubric=[{','.join(rubrics)}]", f"cache.dir={cache}", f"hydra.run.dir={run}", cwd=folder)
    seconds = time.perf_counter() - start
    report = folder / "report"
    harness("meta-eval", str(run), "--labels", str(folder / "labels.jsonl"), "--scale", "0", "1", "--no-tracking",
            "--out-dir", str(report), cwd=folder)
    table = {r["column"]: r for r in csv.DictReader((report / "meta_eval.csv").open())}
    metrics = json.loads((run / "metrics.json").read_text())["metrics"]
    columns = {c: {**{s: _float(r[s]) for s in STATS}, "n": int(r["n"])} for c, r in table.items()}
    if "pmi_faithfulness" in rubrics and "likelihood_faithfulness" not in rubrics:
        columns[CONDITIONAL] = conditional_term(folder)
    return {"rows": rows, "seconds": round(seconds, 1), "metrics": metrics, "columns": columns,
            "align": align(run, folder / "labels.jsonl", folder / "align")}


def align(run: Path, labels: Path, out: Path) -> dict:
    """``harness align`` on a run: per column and split, the figures of align.csv."""
    return _harness_align(run, labels, out, "--out", str(out / "aligned.yaml"), "--name", "qags",
                          "--exclude", "external/*")


def few_shot(run: Path, labels: Path, out: Path, k: int, rubric: str) -> dict:
    """``harness align --few-shot K`` with the local judge on one prompt rubric: held-out and
    in-sample agreement before (the rubric as shipped) and after (K examples in its prompt)."""
    return _harness_align(run, labels, out, "--out", str(out / f"{rubric}_qags.yaml"), "--few-shot", str(k),
                          "--name", f"{rubric}_qags", "judge=local", f"rubric=[{rubric}]")


def _harness_align(run: Path, labels: Path, out: Path, *options: str) -> dict:
    """One ``harness align`` (labels on 0-1, no tracking, written to ``out``): the rows of its align.csv."""
    try:  # the scoring runs are kept either way: a failed alignment is reported, not fatal
        harness("align", str(run), "--labels", str(labels), "--scale", "0", "1", "--no-tracking", "--out-dir",
                str(out), *options, cwd=out.parent)
    except SystemExit as err:
        print(err, file=sys.stderr)
        return {}
    return {f"{r['column']}|{r['split']}": {key: (_float(v) if key not in ("column", "split") else v)
                                            for key, v in r.items()} for r in csv.DictReader((out / "align.csv").open())}


def pooled(results: dict, folders: dict[str, Path], out: Path) -> dict:
    """Both sets as one table (summary ids are distinct across sets), aligned like one set."""
    out.mkdir(parents=True, exist_ok=True)
    (out / "run").mkdir(exist_ok=True)
    with (out / "run" / "per_question.jsonl").open("w") as table, (out / "labels.jsonl").open("w") as labels:
        for folder in folders.values():
            table.write((folder / "run" / "per_question.jsonl").read_text())
            labels.write((folder / "labels.jsonl").read_text())
    return align(out / "run", out / "labels.jsonl", out / "align")


def conditional_term(folder: Path) -> dict:
    """likelihood_faithfulness without a second run: its prompt and continuation are PMI's conditional
    term, which each pmi_faithfulness judgement records as ``detail.mean_log_prob``."""
    human = {json.loads(line)["question_id"]: json.loads(line)["consistency"]
             for line in (folder / "labels.jsonl").open()}
    pairs = [(row["judgements"]["pmi_faithfulness/with_context"]["detail"]["mean_log_prob"], human[row["question_id"]])
             for row in map(json.loads, (folder / "run" / "per_question.jsonl").open())
             if row.get("judgements", {}).get("pmi_faithfulness/with_context", {}).get("score") is not None]
    scores, people = zip(*pairs)
    return {"pearson": float(pearsonr(scores, people)[0]), "spearman": float(spearmanr(scores, people)[0]),
            "kendall": float(kendalltau(scores, people)[0]), "n": len(pairs)}


def _float(text: str) -> float | None:
    return float(text) if text not in ("", "nan", "None") else None


def print_table(results: dict, rubrics: list[str]) -> None:
    columns = ["external/unieval", "answer/faithfulness", *(f"judge/{r}" for r in rubrics), CONDITIONAL]
    print(f"\n{'scorer':48s} {'set':6s} {'Pearson':>8s} {'Spearman':>9s} {'Kendall':>8s} {'n':>4s}")
    for name, result in results.items():
        combined = sorted(c for c in result["columns"] if c.startswith("combined/"))  # conf/metrics/combined.yaml
        for column in [*columns, *combined]:
            row = result["columns"].get(column)
            if row is None:
                continue
            cells = " ".join(f"{row[s]:>8.4f}" if row[s] is not None else f"{'-':>8s}" for s in STATS)
            print(f"{column[:48]:48s} {name:6s} {cells} {row['n']:>4d}")
        for label, figures in PUBLISHED[name].items():
            print(f"{label:48s} {name:6s} {' '.join(f'{v:>8.4f}' for v in figures)}  all")
        metrics = result["metrics"]
        per_item = metrics.get("judge/seconds_per_judged_item")
        thresholds = {k: v for k, v in metrics.items() if k.startswith("judge/") and k.endswith("_threshold")}
        accuracy = {k: v for k, v in metrics.items() if k.startswith("judge/") and k.endswith("_accuracy")}
        print(f"  {name}: {result['rows']} rows, harness run {result['seconds']} s"
              + (f", {1 / per_item:.2f} judged items/s (all rubrics; self-check items not counted)" if per_item else "")
              + "".join(f"; {k} {v:.4g}" for k, v in {**thresholds, **accuracy}.items()))


def speed(path: Path, sets: list[str], count: int, batch_sizes: list[int], dtypes: list[str]) -> list[dict]:
    """Items per second of the likelihood_faithfulness rubric (one forward pass per item over the
    article and its summary) on the first ``count`` rows of each set, in this process, per judge
    batch size and dtype; with the scores' Pearson against the first setting's (same items)."""
    from hydra.utils import instantiate

    from harness.cli.compose import compose
    from harness.judges.items import JudgeItem

    items = []
    for name in sets:
        for line in (path / f"qags_{name}.jsonl").open().readlines()[:count]:
            row = json.loads(line)
            items.append(JudgeItem(question_id=row["id"], target="with_context", question="Summarise the article.",
                                   answer=row["summary"], ground_truth=row["summary"], expected_answer=row["summary"],
                                   contexts=(("", row["source"]),), gold_rank=None))
    results, reference = [], None
    for dtype in dtypes:
        for batch in batch_sizes:
            cfg = compose(["judge=local", f"judge.batch_size={batch}", f"judge.dtype={dtype}",
                           "rubric=[likelihood_faithfulness]"])
            judge, rubric = instantiate(cfg.judge), instantiate(cfg.rubrics.likelihood_faithfulness)
            rubric.evaluate(judge, items[:2])  # loads the model, warms up
            start = time.perf_counter()
            scores = [j.score for j in rubric.evaluate(judge, items)]
            seconds = time.perf_counter() - start
            reference = reference or scores
            results.append({"dtype": dtype, "batch_size": batch, "items": len(items),
                            "items_per_second": len(items) / seconds,
                            "pearson_vs_first": float(pearsonr(scores, reference)[0]),
                            "max_abs_diff_vs_first": max(abs(a - b) for a, b in zip(scores, reference))})
            print(f"likelihood_faithfulness dtype={dtype:9s} batch_size={batch:3d}: "
                  f"{results[-1]['items_per_second']:.2f} items/s over {len(items)} QAGS items; scores vs the first "
                  f"setting: Pearson {results[-1]['pearson_vs_first']:.6f}, max |diff| "
                  f"{results[-1]['max_abs_diff_vs_first']:.2e}", flush=True)
    return results


def print_align(results: dict) -> None:
    print(f"\nharness align (ridge over every embedded column; held_out = outer grouped folds)")
    print(f"{'column':44s} {'set':6s} {'split':9s} {'Pearson [95% CI]':>24s} {'Spearman [95% CI]':>24s} {'n':>4s}")
    for name, table in results.items():
        for key, row in table.items():
            cells = " ".join(f"{row[s]:>7.3f} [{row[s + '_ci_low']:>6.3f},{row[s + '_ci_high']:>6.3f}]"
                             if row[s] is not None else f"{'-':>24s}" for s in ("pearson", "spearman"))
            print(f"{row['column'][:44]:44s} {name:6s} {row['split']:9s} {cells} {int(row['n']):>4d}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--path", type=Path, default=ROOT.parent / "shared" / "data" / "qags")
    parser.add_argument("--sets", nargs="+", default=["xsum", "cnndm"], choices=["xsum", "cnndm"])
    parser.add_argument("--limit", type=int, default=None, help="first N rows of each set (default: all)")
    parser.add_argument("--rubrics", nargs="+", default=RUBRICS)
    parser.add_argument("--no-selfcheck", action="store_true", help="skip the judge's self-check")
    parser.add_argument("--speed", type=int, metavar="N", help="only time likelihood scoring on the first N rows "
                        "of each set, per --batch-sizes and --dtypes (no harness run, no alignment)")
    parser.add_argument("--reuse", type=Path, metavar="OUT", help="no harness runs: align again the newest "
                        "<set>-* run folders of an earlier --out folder (e.g. after changing meta_eval.align)")
    parser.add_argument("--batch-sizes", type=int, nargs="+", default=[1, 8])
    parser.add_argument("--dtypes", nargs="+", default=["float32", "bfloat16"])
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "judge_validity")
    parser.add_argument("--few-shot", type=int, metavar="K", help="also align each prompt rubric given (e.g. "
                        "--rubrics supported) by K labelled examples: harness align --few-shot K, per set")
    args = parser.parse_args()
    # the harness runs in its own working folder: relative paths would dangle
    args.out = args.out.resolve()
    args.reuse = args.reuse.resolve() if args.reuse else None
    if args.speed:
        figures = speed(args.path, args.sets, args.speed, args.batch_sizes, args.dtypes)
        args.out.mkdir(parents=True, exist_ok=True)
        command = "python benchmarks/judge_validity.py " + " ".join(sys.argv[1:])
        (args.out / "judge_speed.json").write_text(json.dumps({"command": command, "speed": figures}, indent=2))
        return
    if args.reuse:
        folders = {name: max(args.reuse.glob(f"{name}-*"), key=lambda p: p.stat().st_mtime) for name in args.sets}
        aligned = {name: align(folder / "run", folder / "labels.jsonl", folder / "align") for name, folder in folders.items()}
        if len(folders) > 1:
            aligned["pooled"] = pooled({}, folders, args.reuse / f"pooled-{int(time.time())}")
        print_align(aligned)
        command = "python benchmarks/judge_validity.py " + " ".join(sys.argv[1:])
        (args.reuse / "judge_align.json").write_text(json.dumps({"command": command, "align": aligned}, indent=2))
        return
    results, folders = {}, {}
    for name in args.sets:
        folders[name] = args.out / f"{name}-{args.limit or 'all'}-{int(time.time())}"
        results[name] = measure(name, args.path / f"qags_{name}.jsonl", folders[name], args.limit, args.rubrics,
                                args.out / "cache", not args.no_selfcheck)
    print_table(results, args.rubrics)
    aligned = {name: result["align"] for name, result in results.items()}
    if len(folders) > 1:
        aligned["pooled"] = results["pooled_align"] = pooled(results, folders, args.out / f"pooled-{int(time.time())}")
    print_align(aligned)
    if args.few_shot:
        prompt_rubrics = [r for r in args.rubrics if r not in NOT_PROMPT_SCORES]
        shots = {f"{name}/{rubric}": few_shot(folder / "run", folder / "labels.jsonl", folder / f"few_shot_{rubric}",
                                               args.few_shot, rubric)
                 for name, folder in folders.items() for rubric in prompt_rubrics}
        results["few_shot"] = shots
        print_align(shots)
    command = "python benchmarks/judge_validity.py " + " ".join(sys.argv[1:])
    (args.out / "judge_validity.json").write_text(json.dumps({"command": command, **results}, indent=2))


if __name__ == "__main__":
    main()
