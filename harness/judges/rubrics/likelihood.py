"""Likelihood rubrics (BARTScore/GPTScore manner): a score read from how probable the judge model
finds a fixed continuation, not from a grade it writes.

For correctness, the continuation is the gold answer after the question and the candidate answer;
for faithfulness, the answer after its contexts. The score is the mean token log-probability
(``mean_log_prob``), optionally minus the same continuation's mean log-probability after an
``unconditional`` prompt without the evidence (pointwise mutual information, ``normalisation:
pmi``), so that an answer is not credited for being a likely sentence on its own. One forward
pass per item (two with PMI), batched by the judge; judges without token log-probabilities (API
judges) record every item as missing with the reason.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from harness.judges.base import Judge, JudgePrompt
from harness.judges.items import JudgeItem
from harness.judges.judgement import Judgement
from harness.judges.rubrics.base import ITEM_PLACEHOLDERS, AccuracyThreshold, Rubric, messages_of, plain

NORMALISATIONS = ("none", "pmi")
TRANSFORMS = ("log", "probability")


class LikelihoodRubric(Rubric):
    """Args:
        messages: the prompt that conditions the continuation (placeholders ``{question}``,
            ``{answer}``, ``{ground_truth}``, ``{expected_answer}``, ``{contexts}``).
        prefix: the start of the assistant's reply before the continuation (a template too).
        continuation: the text whose likelihood is read, e.g. ``"{ground_truth}"``.
        normalisation: ``none`` or ``pmi`` (subtract the mean log-probability after ``unconditional``).
        unconditional: ``{messages, prefix}``: the prompt without the evidence (for ``pmi``).
        transform: how the mean log-probability m (nats per token) becomes the score: ``log``
            keeps m; ``probability`` gives ``multiplier x exp(m)``, the geometric-mean token
            probability on a 0-``multiplier`` scale (with ``pmi``: the probability ratio).
        multiplier: see ``transform``.
        accuracy_threshold: a score at or above it counts as accurate; ``auto`` measures it in
            the run's self-check (:class:`~harness.judges.rubrics.base.AccuracyThreshold`); null:
            no ``_accurate`` column.
        column, applies_to, repair, context_item, context_separator: see :class:`Rubric`.
    """

    def __init__(self, *, column: str, applies_to: list[str], messages: list, continuation: str,
                 repair: str, context_item: str, context_separator: str, prefix: str = "",
                 normalisation: str = "none", unconditional: Mapping[str, Any] | None = None,
                 transform: str = "log", multiplier: float = 1.0, accuracy_threshold: float | str | None = None) -> None:
        super().__init__(column=column, applies_to=applies_to, repair=repair, context_item=context_item,
                         context_separator=context_separator,
                         settings=dict(messages=plain(messages), prefix=prefix, continuation=continuation,
                                       normalisation=normalisation, unconditional=plain(unconditional),
                                       transform=transform, multiplier=multiplier,
                                       accuracy_threshold=accuracy_threshold))
        where = f"rubric {column}"
        self.messages = messages_of(messages, f"{where}: messages")
        self.prefix, self.continuation = str(prefix), str(continuation)
        if normalisation not in NORMALISATIONS:
            raise ValueError(f"{where}: normalisation must be one of {list(NORMALISATIONS)}, got {normalisation!r}")
        if transform not in TRANSFORMS:
            raise ValueError(f"{where}: transform must be one of {list(TRANSFORMS)}, got {transform!r}")
        self.normalisation, self.transform, self.multiplier = normalisation, transform, float(multiplier)
        unconditional = plain(unconditional) or {}
        if normalisation == "pmi" and not unconditional.get("messages"):
            raise ValueError(f"{where}: normalisation pmi needs unconditional.messages (the prompt without evidence)")
        self.unconditional_messages = messages_of(unconditional["messages"], f"{where}: unconditional.messages") \
            if unconditional.get("messages") else ()
        self.unconditional_prefix = str(unconditional.get("prefix") or "")
        self.accuracy_threshold = AccuracyThreshold(accuracy_threshold, where)
        self.check_templates()

    def templates(self) -> dict[str, tuple[str, set[str]]]:
        allowed = set(ITEM_PLACEHOLDERS)
        found = {f"messages[{i}]": (m["content"], allowed) for i, m in enumerate(self.messages)}
        found.update({"prefix": (self.prefix, allowed), "continuation": (self.continuation, allowed)})
        found.update({f"unconditional.messages[{i}]": (m["content"], allowed)
                      for i, m in enumerate(self.unconditional_messages)})
        found["unconditional.prefix"] = (self.unconditional_prefix, allowed)
        return found

    def columns(self, target: str) -> list[str]:
        column = self.column_for(target)
        return [column] + ([f"{column}_accurate"] if self.accuracy_threshold.enabled else [])

    def values(self, judgement: Judgement, item: JudgeItem) -> dict[str, float | None]:
        column = self.column_for(item.target)
        if judgement.failed:
            return {name: None for name in self.columns(item.target)}
        values: dict[str, float | None] = {column: judgement.score}
        if self.accuracy_threshold.enabled:
            values[f"{column}_accurate"] = self.accuracy_threshold.accurate(judgement.score)
        return values

    def evaluate(self, judge: Judge, items: list[JudgeItem], sample: int = 0) -> list[Judgement]:
        if not judge.reads_likelihoods:
            reason = f"judge {judge.describe()} does not expose token log-probabilities (likelihood rubrics need judge=local)"
            return [Judgement.missing_because(reason) for _ in items]
        values = [self.item_values(item) for item in items]
        continuations = [self.continuation.format(**v) for v in values]
        conditional = self._mean_log_probs(judge, self.messages, self.prefix, values, continuations)
        unconditional = self._mean_log_probs(judge, self.unconditional_messages, self.unconditional_prefix,
                                             values, continuations) if self.normalisation == "pmi" else None
        judgements = []
        for index, (mean, tokens) in enumerate(conditional):
            if not tokens:
                judgements.append(Judgement.missing_because("the continuation is empty: nothing to read"))
                continue
            detail: dict[str, Any] = {"mean_log_prob": mean, "tokens": tokens}
            if unconditional is not None:
                detail["unconditional_mean_log_prob"] = unconditional[index][0]
                mean -= unconditional[index][0]
            score = mean if self.transform == "log" else self.multiplier * math.exp(mean)
            judgements.append(Judgement(score=score, detail=detail))
        return judgements

    def _mean_log_probs(self, judge: Judge, messages, prefix: str, values: list[dict[str, str]],
                        continuations: list[str]) -> list[tuple[float, int]]:
        prompts = [JudgePrompt(self.render(messages, v), prefix.format(**v)) for v in values]
        per_token = judge.log_likelihoods(prompts, continuations)
        return [(sum(lp) / len(lp) if lp else float("nan"), len(lp)) for lp in per_token]
