"""Rubrics whose reply is one or more scores: a bare number (seed 004), JSON with a grade and its
reasoning (seed 002), a grade with a verdict (seed 000), or several Likert dimensions (seed 003)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from harness.config.schemas.choices import RubricOutput, values
from harness.judges.base import Judge, JudgePrompt
from harness.judges.items import JudgeItem
from harness.judges.judgement import Judgement
from harness.judges.rubrics.parsing import parse_json_object, parse_number, read_label, read_score, read_text
from harness.judges.rubrics.base import ITEM_PLACEHOLDERS, AccuracyThreshold, Rubric, messages_of, plain

OUTPUTS = values(RubricOutput)


class ScoreRubric(Rubric):
    """Scores on integer scales, read from the reply (API judges) or from the model's next-token
    probabilities (the local judge).

    Args:
        messages: the prompt; placeholders ``{question}``, ``{answer}``, ``{ground_truth}``,
            ``{expected_answer}``, ``{contexts}``.
        output: ``number`` (the whole reply is one number) or ``json`` (one JSON object).
        scores: ``{field: {min, max}}``. One field is the headline score; several are dimensions
            (``likert_relevance``...). With ``output: number`` there is exactly one.
        text_fields: string fields a JSON reply must carry; the first is kept as the reasoning.
        verdict: ``{field, bands: [{label, min_score}]}``: API judges write the label in ``field``;
            for the local judge, which writes no text, the first band whose ``min_score`` the score
            reaches names it (``min_score: null`` catches the rest).
        accuracy_threshold: a score at or above it counts as accurate (seed 004: 7); ``auto``
            measures it in the run's self-check; null: no ``_accurate`` column.
        local: for judges that read probabilities: ``prefixes`` (the start of the assistant reply
            before each field's score, ``str.format``-ed with the earlier fields' scores, e.g.
            ``'{{"relevance": {relevance}, "faithfulness": '``), optional ``messages`` replacing
            the prompt, and optional ``replies``: ``{field: [{value, replies}]}`` read the score
            from these replies instead of the scale's numbers.
        column, applies_to, repair, context_item, context_separator: see :class:`Rubric`.
    """

    def __init__(self, *, column: str, applies_to: list[str], messages: list, output: str,
                 scores: Mapping[str, Any], repair: str, context_item: str, context_separator: str,
                 local: Mapping[str, Any], text_fields: list[str] | None = None,
                 verdict: Mapping[str, Any] | None = None, accuracy_threshold: float | str | None = None,
                 **extra: Any) -> None:
        settings = dict(messages=plain(messages), output=output, scores=plain(scores),
                        text_fields=plain(text_fields or []), verdict=plain(verdict),
                        accuracy_threshold=accuracy_threshold, local=plain(local), **extra)
        super().__init__(column=column, applies_to=applies_to, repair=repair, context_item=context_item,
                         context_separator=context_separator, settings=settings)
        where = f"rubric {column}"
        self.messages = messages_of(messages, f"{where}: messages")
        if output not in OUTPUTS:
            raise ValueError(f"{where}: output must be one of {list(OUTPUTS)}, got {output!r}")
        self.output = output
        self.scales = {name: _scale(spec, f"{where}: scores.{name}") for name, spec in plain(scores).items()}
        if not self.scales or (output == "number" and len(self.scales) != 1):
            raise ValueError(f"{where}: scores needs one field (output: number) or at least one (json), "
                             f"got {list(self.scales)}")
        self.text_fields = list(plain(text_fields or []))
        self.verdict_field, self.bands = _verdict(plain(verdict), where)
        if self.verdict_field is not None and len(self.scales) != 1:
            raise ValueError(f"{where}: a verdict needs a single score field")
        self.accuracy_threshold = AccuracyThreshold(accuracy_threshold, where)
        local = plain(local) or {}
        self.local_messages = messages_of(local["messages"], f"{where}: local.messages") \
            if local.get("messages") else self.messages
        self.prefixes = dict(local.get("prefixes") or {})
        if set(self.prefixes) != set(self.scales):
            raise ValueError(f"{where}: local.prefixes needs one prefix per score field {list(self.scales)}, "
                             f"got {list(self.prefixes)}")
        self.local_replies = {name: _replies(spec, f"{where}: local.replies.{name}")
                              for name, spec in (local.get("replies") or {}).items()}
        if set(self.local_replies) - set(self.scales):
            raise ValueError(f"{where}: local.replies names unknown fields {sorted(set(self.local_replies) - set(self.scales))}")
        self.check_templates()

    # --- templates and columns ---------------------------------------------------------------
    def templates(self) -> dict[str, tuple[str, set[str]]]:
        items = set(ITEM_PLACEHOLDERS)
        found = {f"messages[{i}]": (m["content"], items) for i, m in enumerate(self.messages)}
        found.update({f"local.messages[{i}]": (m["content"], items) for i, m in enumerate(self.local_messages)})
        fields = list(self.scales)
        for name, prefix in self.prefixes.items():
            found[f"local.prefixes.{name}"] = (prefix, set(fields[:fields.index(name)]) if name in fields else set())
        return found

    def columns(self, target: str) -> list[str]:
        base = self.column_for(target)
        return [base] if len(self.scales) == 1 else [f"{base}_{name}" for name in self.scales]

    def values(self, judgement: Judgement, item: JudgeItem) -> dict[str, float | None]:
        base = self.column_for(item.target)
        if judgement.failed:
            return {column: None for column in self.columns(item.target)}
        if len(self.scales) == 1:
            values: dict[str, float | None] = {base: judgement.score}
            if judgement.spread is not None:
                values[f"{base}_spread"] = judgement.spread
        else:
            values = {f"{base}_{name}": judgement.dimensions[name] for name in self.scales}
            values.update({f"{base}_{name}_spread": s for name, s in judgement.dimension_spread.items()})
        if self.accuracy_threshold.enabled and judgement.score is not None:
            values[f"{base}_accurate"] = self.accuracy_threshold.accurate(judgement.score)
        if self.bands and judgement.verdict is not None:
            values.update({f"{base}_verdict_{label.lower()}": float(label == judgement.verdict)
                           for label, _ in self.bands})
        return values

    # --- judging -----------------------------------------------------------------------------
    def evaluate(self, judge: Judge, items: list[JudgeItem], sample: int = 0) -> list[Judgement]:
        if judge.reads_distributions:
            return self._read_probabilities(judge, items, sample)
        conversations = [self.render(self.messages, self.item_values(item)) for item in items]
        judgements = []
        for asked in self.ask(judge, conversations, self.parse, sample):
            if asked.missing is not None:
                judgements.append(Judgement.missing_because(asked.missing, raw=asked.raw))
                continue
            scores, texts, verdict = asked.value
            judgement = self._finish(scores, dict(scores), raw=asked.raw,
                                     reasoning=texts[self.text_fields[0]] if self.text_fields else None,
                                     verdict=verdict)
            judgement.detail["repaired"] = asked.repaired
            judgements.append(judgement)
        return judgements

    def reply_schema(self) -> dict[str, Any] | None:
        """``output: json``: an object with every score field (an integer on its scale), every text
        field and the verdict label, nothing else; ``output: number`` has none (the reply is a bare number).

        >>> rubric = ScoreRubric(column="c", applies_to=["with_context"], messages=[{"role": "user", "content": "{answer}"}],
        ...     output="json", scores={"grade": {"min": 1, "max": 5}}, text_fields=["reasoning"], repair="{error}",
        ...     context_item="{text}", context_separator="\\n", local={"prefixes": {"grade": ""}})
        >>> rubric.reply_schema()["properties"]
        {'grade': {'type': 'integer', 'minimum': 1, 'maximum': 5}, 'reasoning': {'type': 'string'}}
        """
        if self.output != "json":
            return None
        properties: dict[str, Any] = {name: {"type": "integer", "minimum": int(low), "maximum": int(high)}
                                      for name, (low, high) in self.scales.items()}
        properties.update({name: {"type": "string"} for name in self.text_fields})
        if self.verdict_field is not None:
            properties[self.verdict_field] = {"type": "string", "enum": [label for label, _ in self.bands]}
        return {"type": "object", "properties": properties, "required": list(properties),
                "additionalProperties": False}

    def parse(self, text: str) -> tuple[dict[str, float], dict[str, str], str | None]:
        """Strictly reads a reply: the scores, the text fields and the verdict."""
        if self.output == "number":
            [(name, (low, high))] = self.scales.items()
            return {name: parse_number(text, low, high)}, {}, None
        obj = parse_json_object(text)
        scores = {name: read_score(obj, name, low, high) for name, (low, high) in self.scales.items()}
        texts = {name: read_text(obj, name) for name in self.text_fields}
        verdict = read_label(obj, self.verdict_field, [label for label, _ in self.bands]) \
            if self.verdict_field else None
        return scores, texts, verdict

    def _read_probabilities(self, judge: Judge, items: list[JudgeItem], sample: int) -> list[Judgement]:
        """Each field's score as the probability-weighted mean over its scale (deterministic),
        or a draw from the tempered distribution when the judge samples; the argmax is kept."""
        conversations = [self.render(self.local_messages, self.item_values(item)) for item in items]
        chosen: list[dict[str, Any]] = [{} for _ in items]
        scores: list[dict[str, float]] = [{} for _ in items]
        argmax: list[dict[str, float]] = [{} for _ in items]
        detail: list[dict[str, Any]] = [{"candidate_mass": {}, "probabilities": {}} for _ in items]
        missing: list[str | None] = [None] * len(items)
        for name, (low, high) in self.scales.items():
            candidates, values = self._candidates(name, low, high)
            prompts = [JudgePrompt(conversation, self.prefixes[name].format(**done))
                       for conversation, done in zip(conversations, chosen)]
            for index, probabilities in enumerate(judge.probabilities(prompts, candidates)):
                if missing[index] is not None:
                    continue
                by_value: dict[float, float] = {}
                for value, probability in zip(values, probabilities):
                    by_value[value] = by_value.get(value, 0.0) + probability
                mass = sum(by_value.values())
                if not mass > 0 or not math.isfinite(mass):
                    missing[index] = f"the judge put no probability on any score of {name!r}"
                    continue
                weights = {value: p / mass for value, p in by_value.items()}
                best = max(weights, key=weights.get)
                if judge.samples > 1:
                    drawn = judge.draw(weights, prompts[index], sample)
                    scores[index][name], chosen[index][name] = drawn, _fmt(drawn)
                else:
                    scores[index][name] = sum(value * w for value, w in weights.items())
                    chosen[index][name] = _fmt(best)
                argmax[index][name] = best
                detail[index]["candidate_mass"][name] = mass
                detail[index]["probabilities"][name] = {_fmt(v): round(w, 6) for v, w in weights.items()}
        judgements = []
        for index in range(len(items)):
            if missing[index] is not None:
                judgements.append(Judgement.missing_because(missing[index]))
                continue
            judgement = self._finish(scores[index], argmax[index], raw=None, reasoning=None, verdict=None)
            judgement.detail.update(detail[index])
            judgements.append(judgement)
        return judgements

    def _candidates(self, name: str, low: float, high: float) -> tuple[list[str], list[float]]:
        if name in self.local_replies:
            pairs = [(reply, value) for value, replies in self.local_replies[name] for reply in replies]
        else:
            if low != int(low) or high != int(high):
                raise ValueError(f"rubric {self.column}: the local judge reads integer scales; "
                                 f"{name} is {low:g}-{high:g}")
            pairs = [(str(v), float(v)) for v in range(int(low), int(high) + 1)]
        return [p[0] for p in pairs], [p[1] for p in pairs]

    def _finish(self, scores: dict[str, float], argmax: dict[str, float], raw: str | None,
                reasoning: str | None, verdict: str | None) -> Judgement:
        judgement = Judgement(raw=raw, reasoning=reasoning)
        if len(self.scales) == 1:
            [name] = self.scales
            judgement.score, judgement.argmax = scores[name], argmax[name]
        else:
            judgement.dimensions, judgement.dimension_argmax = dict(scores), dict(argmax)
        if self.bands:
            if verdict is None:
                verdict = next(label for label, minimum in self.bands if judgement.score >= minimum)
                judgement.detail["verdict_from"] = "bands"
            else:
                judgement.detail["verdict_from"] = "judge"
            judgement.verdict = verdict
        return judgement


def _scale(spec: Any, where: str) -> tuple[float, float]:
    if not isinstance(spec, Mapping) or set(spec) != {"min", "max"}:
        raise ValueError(f"{where}: expected {{min, max}}, got {spec!r}")
    low, high = float(spec["min"]), float(spec["max"])
    if not low < high:
        raise ValueError(f"{where}: min must be below max, got {low:g}-{high:g}")
    return low, high


def _verdict(spec: Any, where: str) -> tuple[str | None, list[tuple[str, float]]]:
    if spec is None:
        return None, []
    bands = [(str(b["label"]), float("-inf") if b["min_score"] is None else float(b["min_score"]))
             for b in spec["bands"]]
    if not bands or bands[-1][1] != float("-inf"):
        raise ValueError(f"{where}: verdict.bands must end with a catch-all band (min_score: null)")
    if [m for _, m in bands] != sorted((m for _, m in bands), reverse=True):
        raise ValueError(f"{where}: verdict.bands must be ordered from the highest min_score down")
    return str(spec["field"]), bands


def _replies(spec: Any, where: str) -> list[tuple[float, list[str]]]:
    if not isinstance(spec, list) or not spec:
        raise ValueError(f"{where}: expected a list of {{value, replies}}")
    return [(float(entry["value"]), [str(r) for r in entry["replies"]]) for entry in spec]


def _fmt(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:g}"
