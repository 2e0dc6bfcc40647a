"""With context vs without (seed 004): does retrieval add value beyond the model's own knowledge?"""

from __future__ import annotations

import json
from datetime import datetime, timezone

from harness.metrics.answer import f1, max_over_golds
from harness.metrics.suites import MetricSuite, Scores
from harness.results import QuestionRecord


class ContextDeltaSuite(MetricSuite):
    """Scores both conditions 0-10 and reports accuracy (share >= threshold), mean score and delta.

    The 0-10 score is the judge's (``judge_rubric``, seed 004's answer score) when the run judged
    both conditions with it; otherwise a documented proxy: ``10 x`` the best token F1 against the
    gold answers, rounded to an integer like a judge's score. ``context_delta.json`` names the
    scorer. With the judge, a question whose judgement is missing is left out of that condition
    (never scored 0).

    Args:
        threshold: a score at or above it counts as accurate (seed 004: 7).
        bands: ``[{min_delta_pp, label}]``, highest first; the first band whose minimum the delta
            reaches names it (seed 004's interpretation table).
        judge_rubric: the rubric name whose ``<name>/with_context`` and ``<name>/no_context``
            judgements score the conditions; null always uses the proxy.
    """

    def __init__(self, threshold: float, bands: list, judge_rubric: str | None = None) -> None:
        self.threshold = float(threshold)
        self.bands = sorted(((float(b["min_delta_pp"]) if b["min_delta_pp"] is not None else float("-inf"),
                              str(b["label"])) for b in bands), reverse=True)
        self.judge_rubric = judge_rubric
        self._judged: bool | None = None  # decided for the whole run by prepare()

    def _keys(self) -> dict[str, str]:
        return {condition: f"{self.judge_rubric}/{condition}" for condition in ("with_context", "no_context")}

    def judged(self, records: list[QuestionRecord]) -> bool:
        """Whether the run judged both conditions with ``judge_rubric`` (then the judge scores them all)."""
        if self.judge_rubric is None:
            return False
        keys = self._keys().values()
        return any(all(key in r.judgements for key in keys) for r in records)

    def prepare(self, records: list[QuestionRecord]) -> None:
        self._judged = self.judged(records)

    def scorer(self, records: list[QuestionRecord]) -> str:
        if not self.judged(records):
            return "proxy: round(10 x token F1)"
        judges = sorted({j.detail.get("judge", "?") for r in records for key, j in r.judgements.items()
                         if key in self._keys().values() and not j.failed})
        return f"judge: rubric {self.judge_rubric} ({', '.join(judges) or 'no successful judgements'})"

    @staticmethod
    def proxy_score(record: QuestionRecord, text: str) -> float:
        golds = record.question.answers or ((record.question.ground_truth,) if record.question.ground_truth else ())
        return float(round(10 * max_over_golds(f1, text, list(golds)))) if golds else None

    def score(self, record: QuestionRecord) -> Scores:
        judged = self._judged if self._judged is not None else self.judged([record])
        scores: Scores = {}
        for condition, generation in (("with_context", record.generation), ("no_context", record.baseline)):
            if generation is None or generation.failed:
                continue
            if judged:
                judgement = record.judgements.get(self._keys()[condition])
                value = None if judgement is None or judgement.failed else judgement.score
            else:
                value = self.proxy_score(record, generation.text)
            if value is not None:
                scores[f"score_{condition}"] = value
                scores[f"accurate_{condition}"] = float(value >= self.threshold)
        return scores

    def aggregate(self, rows: list[Scores]) -> Scores:
        aggregates: Scores = {}
        for condition in ("with_context", "no_context"):
            scored = [row for row in rows if f"score_{condition}" in row]
            if scored:
                aggregates[f"accuracy_{condition}"] = 100 * sum(r[f"accurate_{condition}"] for r in scored) / len(scored)
                aggregates[f"avg_score_{condition}"] = sum(r[f"score_{condition}"] for r in scored) / len(scored)
                aggregates[f"n_{condition}"] = float(len(scored))
        if "accuracy_with_context" in aggregates and "accuracy_no_context" in aggregates:
            aggregates["delta_pp"] = aggregates["accuracy_with_context"] - aggregates["accuracy_no_context"]
        return aggregates

    def interpret(self, delta_pp: float) -> str:
        return next(label for minimum, label in self.bands if delta_pp >= minimum)

    def artifacts(self, records: list[QuestionRecord], rows: list[Scores]) -> dict[str, str]:
        summary = self.aggregate(rows)
        if "delta_pp" not in summary:
            return {}
        paired = [(r, row) for r, row in zip(records, rows) if "score_with_context" in row and "score_no_context" in row]
        report = {
            "timestamp": datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "scorer": self.scorer(records),
            "threshold": self.threshold,
            "questions_evaluated": len(paired),
            "grand_summary": {
                condition: {"avg": summary[f"avg_score_{condition}"], "accuracy": summary[f"accuracy_{condition}"],
                            "n": int(summary[f"n_{condition}"])} for condition in ("no_context", "with_context")},
            "delta_pp": summary["delta_pp"],
            "interpretation": self.interpret(summary["delta_pp"]),
            "scores": {"no_context": [row["score_no_context"] for _, row in paired],
                       "with_context": [row["score_with_context"] for _, row in paired]},
            "question_ids": [r.question.id for r, _ in paired],
        }
        return {"context_delta.json": json.dumps(report, indent=2)}
