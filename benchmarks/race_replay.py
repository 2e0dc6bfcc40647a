"""A finished grid sweep replayed as races, offline: what each elimination rule would have spent.

    python benchmarks/race_replay.py SWEEP_DIR --metric key_facts/coverage_exact
    python benchmarks/race_replay.py SWEEP_DIR --metric retrieval/ndcg_at_10 --blocks 20:20 10:10 5:5 --alpha 0.05
    python benchmarks/race_replay.py SWEEP_DIR --metric answer/f1 --blocks 20:20 20:20:1.25 20:20:1.5 20:20:2
    python benchmarks/race_replay.py SWEEP_DIR --metric answer/bertscore_f1 --test asymptotic --tightest-at 100

Reads each job's per-question table (every question of the dataset, in its order, as a grid runs
them), puts the questions in the race order of ``race.seed`` (harness.racing.order, unstratified,
as the racing sweeper does by default) and runs :class:`harness.racing.race.Race` round by round
under each ``race.evidence`` rule and block size (``first:step``, or ``first:step:growth`` for
geometric blocks, ``race.growth``). No job is re-run, so a rule or a
block size is costed in seconds on a sweep that took an hour; a race of the racing sweeper over
the same questions makes the same decisions (it reads the same per-question values). Prints, per
rule and blocks: the fraction of the grid's question-evaluations spent, the rounds (launches), the
champion, and after how many questions each loser left.
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

import yaml

from harness.racing.confseq import TESTS
from harness.racing.elimination import EVIDENCE, EliminationRule
from harness.racing.order import race_order, round_sizes
from harness.racing.race import Race
from harness.results.table import read_table
from harness.stats.spec import MetricSpec

ROOT = Path(__file__).resolve().parents[1]


def job_names(jobs: list[Path]) -> list[str]:
    """Each job named by the overrides that vary across the sweep."""
    overrides = [yaml.safe_load((job / ".hydra" / "overrides.yaml").read_text()) or [] for job in jobs]
    shared = set.intersection(*(set(o) for o in overrides))
    return [",".join(o for o in mine if o not in shared) or job.name for job, mine in zip(jobs, overrides)]


def load(sweep: Path, metric: str) -> tuple[dict[str, dict[str, float | None]], list[str]]:
    """Per job, question id -> the metric's value; and the question ids in the dataset's order."""
    jobs = sorted((p for p in sweep.iterdir() if p.is_dir() and p.name.isdigit()), key=lambda p: int(p.name))
    if not jobs:
        sys.exit(f"{sweep}: no job folders")
    values, order = {}, None
    for job, name in zip(jobs, job_names(jobs)):
        rows = read_table(job)
        ids = [row["question_id"] for row in rows]
        if order is None:
            order = ids
        elif sorted(ids) != sorted(order):
            sys.exit(f"{job}: its table holds other questions than job {jobs[0].name}'s; replay needs a full grid")
        values[name] = {row["question_id"]: _value(row.get(metric)) for row in rows}
    if all(v is None for table in values.values() for v in table.values()):
        sys.exit(f"{sweep}: no job has values of {metric}")
    return values, order


def _value(value) -> float | None:
    return None if value is None or (isinstance(value, float) and math.isnan(value)) else float(value)


def replay(values: dict, ordered: list[str], rule: EliminationRule, first: int, step: int,
           growth: float = 1.0) -> Race:
    race = Race(list(values), round_sizes(len(ordered), first, step, max_rounds=10_000, growth=growth), rule,
                len(ordered))
    while not race.done:
        n = race.next_size
        race.finish_round({name: {rule.primary.name: [values[name][q] for q in ordered[:n]]}
                           for name in race.survivors})
    return race


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("sweep", type=Path, help="a finished grid sweep's folder (hydra.sweep.dir)")
    parser.add_argument("--metric", required=True, help="the primary metric (a per-question column)")
    parser.add_argument("--lower-is-better", action="store_true")
    parser.add_argument("--blocks", nargs="+", default=["20:20", "10:10", "5:5"],
                        help="first:step (or first:step:growth) race blocks")
    parser.add_argument("--alpha", type=float, default=0.05)
    parser.add_argument("--test", default="betting", choices=TESTS)
    parser.add_argument("--tightest-at", type=float, help="--test asymptotic: race.tightest_at (default: conf/config.yaml's)")
    parser.add_argument("--bounds", type=float, nargs=2, default=[0.0, 1.0])
    parser.add_argument("--seed", type=int, default=0, help="race.seed (the sweep's seed)")
    args = parser.parse_args()
    tightest_at = args.tightest_at or yaml.safe_load((ROOT / "conf" / "config.yaml").read_text())["race"]["tightest_at"]

    values, order = load(args.sweep, args.metric)
    ordered = [order[i] for i in race_order([""] * len(order), args.seed)]
    primary = MetricSpec(args.metric, "lower" if args.lower_is_better else "higher", "primary")
    print(f"{len(values)} configurations, {len(order)} questions, {args.metric}, alpha {args.alpha}, {args.test}"
          + (f" (tightest at {tightest_at:g} questions)" if args.test == "asymptotic" else ""))
    for evidence in EVIDENCE:
        for block in args.blocks:
            first, step, *grow = block.split(":")
            first, step, growth = int(first), int(step), float(grow[0]) if grow else 1.0
            rule = EliminationRule(primary, (), args.alpha, args.test, args.bounds[0], args.bounds[1],
                                   min_questions=first, configurations=len(values), evidence=evidence,
                                   tightest_at=tightest_at)
            race = replay(values, ordered, rule, first, step, growth)
            left = sorted(race.questions(name) for name in values if race.eliminated_round(name))
            print(f"{evidence:8s} blocks {block:11s} {race.evaluations / race.grid_evaluations:.3f} of the grid's "
                  f"question-evaluations in {len(race.rounds)} rounds; champion {race.champion}; "
                  f"losers left after {left or 'none'}")


if __name__ == "__main__":
    main()
