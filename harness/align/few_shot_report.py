"""``harness align --few-shot K``: a prompt rubric's agreement with people before and after K
labelled examples are written into its prompt (:mod:`harness.align.few_shot`)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import yaml
from hydra.utils import instantiate

from harness.align.few_shot import items_from_table, pick_examples, with_examples
from harness.align.report import CSV_NAME, HELD_OUT, IN_SAMPLE, TEXT_NAME, Agreement, agreement_rows, csv_text, \
    table_lines
from harness.align.settings import AlignSettings
from harness.human.table import RunTable
from harness.metaeval.correlation import STATISTICS, bootstrap_estimate
from harness.metaeval.labels import Labels
from harness.metaeval.settings import MetaEvalSettings, Scale

FEW_SHOT = "few_shot"


@dataclass
class FewShotReport:
    """The rubric before (as configured) and after (with K examples), on held-out folds and in-sample."""

    runs: list[RunTable]
    labels: Labels
    dimension: str
    rubric: str
    k: int
    agreements: list[Agreement]
    config: dict[str, Any]
    examples: list[str]
    confidence: float
    kind: str = "absolute"

    def rows(self) -> list[dict[str, object]]:
        return agreement_rows(self.agreements, lambda a: not a.column.endswith(FEW_SHOT))

    def figure(self, column: str, split: str, statistic: str = "pearson") -> float:
        return next(a.estimates[statistic].value for a in self.agreements if a.column == column and a.split == split)

    def metrics(self) -> dict[str, float]:
        out = {f"align/{r['split']}/{s}/{r['column']}": float(r[s]) for r in self.rows() for s in STATISTICS}
        return {k: v for k, v in out.items() if not math.isnan(v)}

    def text(self) -> str:
        after = f"{self.rubric}_{FEW_SHOT}"
        gain = self.figure(after, HELD_OUT) - self.figure(self.rubric, HELD_OUT)
        return "\n".join([f"harness align --few-shot {self.k}: rubric {self.rubric}, dimension '{self.dimension}'; "
                          f"held_out = judged with examples from the other folds only; {self.confidence:.0%} "
                          f"bootstrap CIs", *table_lines(self.rows()),
                          f"held-out Pearson after minus before: {gain:+.3f}; examples of the written rubric: "
                          f"{', '.join(self.examples)}"]) + "\n"

    def rubric_config(self, name: str) -> str:
        body = {"defaults": ["/schema/rubric/score@_here_", "_self_"], **self.config}
        return (f"# @package rubrics.{name}\n# Written by `harness align --few-shot {self.k}` from {self.labels.path}: "
                f"rubric {self.rubric} with {len(self.examples)} labelled examples in its prompt.\n"
                f"# Use it with --config-dir <this config dir> 'rubric=[{name}]'\n"
                + yaml.safe_dump(body, sort_keys=False, allow_unicode=True))

    def write(self, folder: Path) -> list[Path]:
        folder.mkdir(parents=True, exist_ok=True)
        paths = [folder / CSV_NAME, folder / TEXT_NAME]
        paths[0].write_text(csv_text(self.rows()), encoding="utf-8")
        paths[1].write_text(self.text(), encoding="utf-8")
        return paths


def few_shot_alignment(judge, rubric_config: dict[str, Any], table: RunTable, labels: Labels, dimension: str,
                       k: int, settings: MetaEvalSettings, align_settings: AlignSettings, scale: Scale | None,
                       name: str) -> FewShotReport:
    """Judges the labelled answers with the rubric as configured, then, fold by fold, with K
    examples picked from the other folds; and once with K examples from every labelled answer
    (the in-sample figure, and the rubric written out)."""
    human = labels.mean_rating(dimension)
    items = items_from_table(table, list(human))
    qids = list(items)
    if len(qids) < max(settings.min_pairs, 2 * k):
        raise ValueError(f"{len(qids)} labelled answered questions are too few for --few-shot {k}")
    scale = scale or Scale(min(human.values()), max(human.values()))
    base = instantiate(rubric_config)
    column = rubric_config["column"]

    def judge_with(config: dict[str, Any] | None, ids: list[str]) -> dict[str, float | None]:
        rubric = base if config is None else instantiate(config)
        return {q: j.score for q, j in zip(ids, rubric.evaluate(judge, [items[q] for q in ids]))}

    def examples(pool: list[str]) -> tuple[dict[str, Any], list[str]]:
        chosen = pick_examples(human, pool, k)
        return with_examples(rubric_config, base, [(items[q], human[q]) for q in chosen], scale, name), chosen

    before = judge_with(None, qids)
    held_out: dict[str, float | None] = {}
    folds = align_settings.folds(align_settings.outer_folds, len(qids))
    for train, test in folds.split(qids, groups=qids):
        config, _ = examples([qids[i] for i in train])
        held_out.update(judge_with(config, [qids[i] for i in test]))
    final, chosen = examples(qids)
    in_sample = judge_with(final, qids)

    def agreement(label: str, split: str, scores: dict[str, float | None]) -> Agreement:
        pairs = [(scores[q], human[q]) for q in qids if scores.get(q) is not None]
        x, y = np.array([p[0] for p in pairs]), np.array([p[1] for p in pairs])
        return Agreement(label, split, len(pairs), {s: bootstrap_estimate(s, x, y, settings.resamples,
                                                                          settings.confidence, settings.seed)
                                                    for s in STATISTICS})

    after = f"{column}_{FEW_SHOT}"
    agreements = [agreement(column, IN_SAMPLE, before), agreement(column, HELD_OUT, before),
                  agreement(after, IN_SAMPLE, in_sample), agreement(after, HELD_OUT, held_out)]
    return FewShotReport(runs=[table], labels=labels, dimension=dimension, rubric=column, k=k, agreements=agreements,
                         config=final, examples=chosen, confidence=settings.confidence)
