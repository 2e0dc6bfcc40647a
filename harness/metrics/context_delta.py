"""With context vs without (seed 004): does retrieval add value beyond the model's own knowledge?"""

from __future__ import annotations

import json
import math
from datetime import datetime, timezone
from typing import Any

from harness.cache import DiskCache
from harness.metrics.answer import f1, max_over_golds
from harness.metrics.context_delta_summary import sweep_lines
from harness.metrics.context_significance import Significance, SignificanceSettings, paired_significance
from harness.metrics.suites import MetricSuite, Scores
from harness.results.records import QuestionRecord

CONDITIONS = ("with_context", "no_context")
# Seed 004's results JSON names the conditions "training" (the model alone) and "pack" (with retrieval).
SEED_NAMES = {"no_context": "training", "with_context": "pack"}


class ContextDeltaSuite(MetricSuite):
    """Scores both conditions 0-10 and reports accuracy (share >= threshold), mean score and delta.

    The 0-10 score is the judge's (``judge_rubric``, seed 004's answer score) when the run judged
    both conditions with it; otherwise a documented proxy: ``10 x`` the best token F1 against the
    gold answers, rounded half up to an integer like a judge's score. ``context_delta.json`` names
    the scorer. Seed 004 scores both conditions on the same questions, so with both conditions the
    figures cover the questions scored under both; a question whose answer failed or whose
    judgement is missing in either condition is left out of both (never scored 0) and counted in
    ``missing_<condition>`` and ``unpaired``.

    Args:
        threshold: a score at or above it counts as accurate (seed 004: 7), or ``auto``: the
            accuracy threshold the judging stage applied to ``judge_rubric`` in this run (its
            fixed number, or the one its self-check measured with ``accuracy_threshold: auto``).
            With ``auto`` and no such threshold (proxy scoring, self-check off) accuracy and the
            delta are not reported.
        bands: ``[{min_delta_pp, label, exclusive}]``; the band with the highest minimum that the
            delta reaches (exceeds, when ``exclusive``) names it (seed 004's interpretation table).
        judge_rubric: the rubric name whose ``<name>/with_context`` and ``<name>/no_context``
            judgements score the conditions; null always uses the proxy.
        pack_name: the key of this run in the results JSON's ``per_pack`` (the dataset's name).
        significance: ``{resamples, confidence, seed, min_pairs}`` of the paired tests on the
            delta (McNemar, Wilcoxon, bootstrap CI; :mod:`harness.metrics.context_significance`);
            null runs none.
    """

    def __init__(self, threshold: float | str, bands: list, judge_rubric: str | None = None,
                 pack_name: str = "run", significance: dict | None = None) -> None:
        self.auto = threshold == "auto"
        try:
            self.threshold: float | None = None if self.auto else float(threshold)
        except (TypeError, ValueError):
            raise ValueError(f"metrics.context_delta.threshold must be a number or 'auto', got {threshold!r}") from None
        self.bands = sorted(((float(b["min_delta_pp"]) if b["min_delta_pp"] is not None else float("-inf"),
                              bool(b.get("exclusive", False)), str(b["label"])) for b in bands),
                            key=lambda band: (band[0], not band[1]), reverse=True)
        self.judge_rubric = judge_rubric
        self.pack_name = pack_name
        self.significance = None if significance is None else SignificanceSettings(
            resamples=int(significance["resamples"]), confidence=float(significance["confidence"]),
            seed=int(significance["seed"]), min_pairs=int(significance["min_pairs"]))
        self._judged: bool | None = None  # decided for the whole run by prepare()
        self._selfcheck: bool | None = None  # the scoring judge's self-check, read by prepare()

    def _keys(self) -> dict[str, str]:
        return {condition: f"{self.judge_rubric}/{condition}" for condition in CONDITIONS}

    def judged(self, records: list[QuestionRecord]) -> bool:
        """Whether the run judged both conditions with ``judge_rubric`` (then the judge scores them all)."""
        if self.judge_rubric is None:
            return False
        keys = self._keys().values()
        return any(all(key in r.judgements for key in keys) for r in records)

    def prepare(self, records: list[QuestionRecord], cache: DiskCache | None = None) -> None:
        self._judged = self.judged(records)
        self._selfcheck = self.selfcheck_passed(records) if self._judged else None
        if self.auto:
            found = {j.detail["accuracy_threshold"] for r in records for key, j in r.judgements.items()
                     if key in self._keys().values() and "accuracy_threshold" in j.detail} if self._judged else set()
            self.threshold = found.pop() if len(found) == 1 else None

    def selfcheck_passed(self, records: list[QuestionRecord]) -> bool | None:
        """Whether the judge rubric that scored the delta passed its self-check (None: not checked)."""
        flags = {j.detail["selfcheck_passed"] for r in records for key, j in r.judgements.items()
                 if key in self._keys().values() and "selfcheck_passed" in j.detail}
        return None if not flags else all(flags)

    def scorer(self, records: list[QuestionRecord]) -> str:
        if not self.judged(records):
            return "proxy: round half up(10 x token F1)"
        judges = sorted({j.detail.get("judge", "?") for r in records for key, j in r.judgements.items()
                         if key in self._keys().values() and not j.failed})
        return f"judge: rubric {self.judge_rubric} ({', '.join(judges) or 'no successful judgements'})"

    @staticmethod
    def proxy_score(record: QuestionRecord, text: str) -> float | None:
        golds = record.question.answers or ((record.question.ground_truth,) if record.question.ground_truth else ())
        # Half up, not Python's half-to-even: an F1 of 0.65 is a 7, as a judge would round it.
        return float(math.floor(10 * max_over_golds(f1, text, list(golds)) + 0.5)) if golds else None

    def score(self, record: QuestionRecord) -> Scores:
        judged = self._judged if self._judged is not None else self.judged([record])
        scores: Scores = {}
        for condition, generation in (("with_context", record.generation), ("no_context", record.baseline)):
            if generation is None or generation.extra.get("skipped"):
                continue  # not asked under this condition
            value = None
            if not generation.failed:
                if judged:
                    judgement = record.judgements.get(self._keys()[condition])
                    value = None if judgement is None or judgement.failed else judgement.score
                else:
                    value = self.proxy_score(record, generation.text)
            if value is None:
                scores[f"missing_{condition}"] = 1.0
            else:
                scores[f"score_{condition}"] = value
                if self.threshold is not None:
                    scores[f"accurate_{condition}"] = float(value >= self.threshold)
        return scores

    def _scored_rows(self, rows: list[Scores]) -> tuple[list[str], list[int]]:
        """The conditions this run asked, and the rows that count: those scored under all of them."""
        asked = [c for c in CONDITIONS if any(f"score_{c}" in row or f"missing_{c}" in row for row in rows)]
        counted = [i for i, row in enumerate(rows) if asked and all(f"accurate_{c}" in row for c in asked)]
        return asked, counted

    @classmethod
    def sweep_summary(cls, summaries: list[dict[str, Any]], title: str, console=None, brief: bool = False) -> None:
        """The delta's n, interval and test beside the number (one line for a sweep when ``brief``)."""
        for line in sweep_lines(summaries, brief):
            print(line)

    def aggregate(self, rows: list[Scores]) -> Scores:
        asked, counted = self._scored_rows(rows)
        aggregates: Scores = {}
        for condition in asked:
            aggregates[f"missing_{condition}"] = float(sum(1 for row in rows if f"missing_{condition}" in row))
            if counted:
                scored = [rows[i] for i in counted]
                aggregates[f"accuracy_{condition}"] = 100 * sum(r[f"accurate_{condition}"] for r in scored) / len(scored)
                aggregates[f"avg_score_{condition}"] = sum(r[f"score_{condition}"] for r in scored) / len(scored)
                aggregates[f"n_{condition}"] = float(len(scored))
        if asked:
            asked_rows = sum(1 for row in rows if any(f"score_{c}" in row or f"missing_{c}" in row for c in asked))
            aggregates["unpaired"] = float(asked_rows - len(counted))
        if counted and len(asked) == len(CONDITIONS):
            aggregates["delta_pp"] = aggregates["accuracy_with_context"] - aggregates["accuracy_no_context"]
            tests = self.tests(rows)
            if tests is not None:
                aggregates.update(tests.metrics())
            if self._selfcheck is not None:  # a judge that failed it makes the delta no evidence
                aggregates["selfcheck_passed"] = float(self._selfcheck)
        return aggregates

    def tests(self, rows: list[Scores]) -> Significance | None:
        """The paired tests on the questions scored under both conditions (None when turned off)."""
        if self.significance is None:
            return None
        _, counted = self._scored_rows(rows)
        column = {key: [rows[i][key] for i in counted] for key in
                  ("score_with_context", "score_no_context", "accurate_with_context", "accurate_no_context")}
        return paired_significance(column["score_with_context"], column["score_no_context"],
                                   column["accurate_with_context"], column["accurate_no_context"], self.significance)

    def interpret(self, delta_pp: float) -> str:
        return next(label for minimum, exclusive, label in self.bands
                    if (delta_pp > minimum if exclusive else delta_pp >= minimum))

    def artifacts(self, records: list[QuestionRecord], rows: list[Scores]) -> dict[str, str]:
        """``context_delta.json`` in seed 004's shape (``training`` = no context, ``pack`` = with it)."""
        summary = self.aggregate(rows)
        if "delta_pp" not in summary:
            return {}
        _, counted = self._scored_rows(rows)
        report = {
            "timestamp": datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "packs_evaluated": 1,
            "sample_per_pack": len(counted),
            "grand_summary": {
                SEED_NAMES[c]: {"avg": summary[f"avg_score_{c}"], "accuracy": summary[f"accuracy_{c}"],
                                "n": int(summary[f"n_{c}"])} for c in ("no_context", "with_context")},
            "per_pack": {self.pack_name: {
                "scores": {SEED_NAMES[c]: [rows[i][f"score_{c}"] for i in counted] for c in ("no_context", "with_context")},
                "question_ids": [records[i].question.id for i in counted]}},
            "delta_pp": summary["delta_pp"],
            "interpretation": self.interpret(summary["delta_pp"]),
            "conditions": {seed: ours for ours, seed in SEED_NAMES.items()},
            "scorer": self.scorer(records),
            "scorer_selfcheck_passed": self._selfcheck,
            "threshold": self.threshold,
            "missing": {c: int(summary[f"missing_{c}"]) for c in CONDITIONS},
        }
        tests = self.tests(rows)
        if tests is not None:
            report["significance"] = tests.json(self.significance.confidence, self.significance.resamples)
        return {"context_delta.json": json.dumps(report, indent=2)}
