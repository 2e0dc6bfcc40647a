"""What a judge said about one item: a score, or the reason there is none."""

from __future__ import annotations

import statistics
from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass
class Judgement:
    """One rubric applied to one item (an answer, or a question's retrieved chunks).

    ``score`` is None exactly when ``missing`` says why (the judge failed, its reply stayed
    unparsable after the repair attempt, the generation it should grade failed...). A missing
    score is reported as missing, never as 0.

    Attributes:
        score: the headline score on the rubric's scale (the mean over samples when sampled);
            None for multi-dimension rubrics, whose values are in ``dimensions``.
        argmax: the most probable score (local judge) or the parsed score (API judges).
        dimensions: per-dimension scores (likert: relevance, faithfulness, conciseness).
        dimension_argmax: per-dimension most probable scores.
        verdict: PASS/PARTIAL/FAIL style label when the rubric has one.
        reasoning: the judge's explanation when the rubric asks for one.
        raw: the judge's raw reply (last attempt), kept for inspection.
        samples: per-sample scores when ``judge.samples > 1`` (per-sample dimension dicts for
            multi-dimension rubrics; None for a failed sample).
        spread: standard deviation of the samples (ddof=1), per dimension in ``dimension_spread``.
        missing: why there is no score.
        detail: rubric-specific extras (claims and their verdicts, candidate probability mass...).
        values: the per-question table columns derived from this judgement (set by the judging
            stage, e.g. ``{"answer_score": 8.2}``); None values are missing.
        cached: read from the judgement cache rather than computed in this run.
    """

    score: float | None = None
    argmax: float | None = None
    dimensions: dict[str, float] = field(default_factory=dict)
    dimension_argmax: dict[str, float] = field(default_factory=dict)
    verdict: str | None = None
    reasoning: str | None = None
    raw: str | None = None
    samples: list[Any] = field(default_factory=list)
    spread: float | None = None
    dimension_spread: dict[str, float] = field(default_factory=dict)
    missing: str | None = None
    detail: dict[str, Any] = field(default_factory=dict)
    values: dict[str, float | None] = field(default_factory=dict)
    cached: bool = False

    @property
    def failed(self) -> bool:
        return self.missing is not None

    @classmethod
    def missing_because(cls, reason: str, raw: str | None = None) -> "Judgement":
        return cls(missing=reason, raw=raw)

    def row(self) -> dict[str, Any]:
        """The judgement as a JSON-ready dict for the per-question table (empty fields dropped)."""
        return {key: value for key, value in asdict(self).items()
                if key != "values" and value not in (None, [], {}) and not (key == "cached" and not value)}


def combine_samples(samples: list[Judgement]) -> Judgement:
    """Several samples of one judgement: mean score, spread (ddof=1) and the samples themselves.

    The combination is missing only if every sample is; otherwise the failed samples are kept
    as None in ``samples`` and left out of the mean and spread.
    """
    if len(samples) == 1:
        return samples[0]
    good = [s for s in samples if not s.failed]
    if not good:
        return Judgement.missing_because(f"all {len(samples)} samples failed; first: {samples[0].missing}",
                                         raw=samples[0].raw)
    first = good[0]
    combined = Judgement(verdict=_most_common([s.verdict for s in good]), reasoning=first.reasoning,
                         raw=first.raw, detail={**first.detail, "samples_failed": len(samples) - len(good)})
    if first.score is not None:
        scores = [s.score for s in good]
        combined.score = statistics.fmean(scores)
        combined.argmax = _most_common([s.argmax for s in good])
        combined.spread = statistics.stdev(scores) if len(scores) > 1 else None
    combined.samples = [s.score for s in samples]
    for name in first.dimensions:
        values = [s.dimensions[name] for s in good]
        combined.dimensions[name] = statistics.fmean(values)
        combined.dimension_argmax[name] = _most_common([s.dimension_argmax.get(name) for s in good])
        if len(values) > 1:
            combined.dimension_spread[name] = statistics.stdev(values)
    if first.score is None:
        combined.samples = [dict(s.dimensions) if not s.failed else None for s in samples]
    return combined


def _most_common(values: list):
    present = [v for v in values if v is not None]
    return max(set(present), key=present.count) if present else None
