"""A rubric that runs one of MLflow's own GenAI judges on each item (needs ``judge=mlflow``).

``scorer`` names it:

* a built-in scorer class of ``mlflow.genai.scorers`` (``Correctness``, ``RelevanceToQuery``,
  ``Guidelines``, ``Equivalence``...), built with ``options`` and called with the
  ``inputs``/``outputs``/``expectations`` it reads;
* ``make_judge`` (``mlflow.genai.judges``): ``options.instructions`` is the rubric, with MLflow's
  template variables ``{{ inputs }}``, ``{{ outputs }}``, ``{{ expectations }}``;
* a judge function of ``mlflow.genai.judges`` (``is_grounded``, ``is_context_sufficient``,
  ``is_context_relevant``...), called with the arguments it takes. The scorers that read a trace's
  retriever span (``RetrievalGroundedness``, ``RetrievalSufficiency``) call these on each span's
  documents; here the documents are the item's chunks, so name their judge function.

An item gives MLflow, by MLflow's own argument names: ``inputs`` = ``{"question": ...}``, ``request``
= the question, ``outputs`` and ``response`` = the answer, ``expectations`` =
``{"expected_response": ...}`` and ``expected_response`` = the expected answer, ``context`` = the
chunks as ``[{"content": text, "doc_uri": title}]``. A verdict becomes the column's number through
``values`` (``yes: 1, no: 0``); a numeric verdict is taken as it is, within ``scale`` when given.
Anything else is an unparsable verdict, and a failed call a failure: each counted with its reason,
never a value.
"""

from __future__ import annotations

import inspect
import json
import math
from collections.abc import Mapping
from functools import partial
from typing import Any, Literal

from harness.judges.base import Judge
from harness.judges.items import JudgeItem
from harness.judges.mlflow_judge import SCORERS, offline
from harness.judges.judgement import Judgement
from harness.judges.rubrics.base import Rubric, plain
from harness.judges.rubrics.parsing import ParseError


MAKE_JUDGE = "make_judge"
# MLflow's argument name -> the item field it is made of (None: always given).
NEEDS = {"inputs": "question", "request": "question", "outputs": "answer", "response": "answer",
         "expectations": "expected_answer", "expected_response": "expected_answer", "context": "contexts",
         "expected_facts": None}


def mlflow_arguments(item: JudgeItem) -> dict[str, Any]:
    """Every argument an MLflow judge may read, in MLflow's shapes, from one item."""
    context = [{"content": text, "doc_uri": title} for title, text in item.contexts or ()]
    # expected_facts: a question holds no fact list for its answer; MLflow then reads expected_response.
    return {"inputs": {"question": item.question}, "request": item.question, "outputs": item.answer,
            "response": item.answer, "expectations": {"expected_response": item.expected_answer},
            "expected_response": item.expected_answer, "context": context, "expected_facts": None}


class MlflowScorerRubric(Rubric):
    """Args:
        column, applies_to: see :class:`~harness.judges.rubrics.base.Rubric`.
        scorer: the MLflow scorer class, ``make_judge``, or judge function (module docstring).
        options: its arguments besides the model, the name and the item's (``guidelines`` for
            ``Guidelines``, ``instructions`` for ``make_judge``).
        values: verdict -> number (``{"yes": 1, "no": 0}``); ``make_judge`` is asked for one of them.
        scale: ``{min, max}`` of a numeric verdict (``make_judge`` without ``values`` is asked for a
            number), or null.
    """

    asks = SCORERS

    def __init__(self, *, column: str, applies_to: list[str], scorer: str, options: Mapping[str, Any] | None = None,
                 values: Mapping[str, float] | None = None, scale: Mapping[str, float] | None = None) -> None:
        options, values, scale = plain(options) or {}, plain(values) or {}, plain(scale)
        super().__init__(column=column, applies_to=applies_to, repair="", context_item="{text}", context_separator="",
                         settings={"scorer": scorer, "options": options, "values": values, "scale": scale})
        self.scorer, self.options = scorer, dict(options)
        self.values_of = {str(label).lower(): float(number) for label, number in values.items()}
        self.scale = (float(scale["min"]), float(scale["max"])) if scale else None
        self._build, self.arguments = _resolve(scorer, self.options, column, self.values_of)

    # --- columns -------------------------------------------------------------------------------
    def templates(self) -> dict[str, tuple[str, set[str]]]:
        return {}  # the prompt is MLflow's

    def columns(self, target: str) -> list[str]:
        return [self.column_for(target)]

    def values(self, judgement: Judgement, item: JudgeItem) -> dict[str, float | None]:
        return {self.column_for(item.target): None if judgement.failed else judgement.score}

    def not_applicable(self, item: JudgeItem) -> str | None:
        for field in sorted({NEEDS[name] for name in self.arguments} - {None}):
            if field == "contexts" and item.contexts is None:
                return "the answering system did not report its contexts"
            if getattr(item, field) is None:
                return f"question has no {field}"
        return None

    def cache_payload(self, item: JudgeItem) -> Any:
        arguments = mlflow_arguments(item)
        return {"target": item.target, "arguments": {name: arguments[name] for name in self.arguments}}

    # --- judging -------------------------------------------------------------------------------
    def evaluate(self, judge: Judge, items: list[JudgeItem], sample: int = 0) -> list[Judgement]:
        if SCORERS not in getattr(judge, "answers", ()):
            return [Judgement.missing_because(f"rubric {self.column} runs MLflow's {self.scorer}: it needs judge=mlflow")
                    for _ in items]
        call = self._build(judge.model)
        calls = [partial(call, **{name: mlflow_arguments(item)[name] for name in self.arguments}) for item in items]
        return [self._judgement(feedback, error) for feedback, error in judge.run(calls, self.column)]

    def _judgement(self, feedback: Any, error: str | None) -> Judgement:
        if error is not None:
            return Judgement.missing_because(f"judge call failed: {error}")
        if isinstance(feedback, list):
            if len(feedback) != 1:
                return Judgement.missing_because(f"MLflow's {self.scorer} gave {len(feedback)} verdicts for one item")
            [feedback] = feedback
        if getattr(feedback, "error", None) is not None:
            return Judgement.missing_because(f"judge call failed: {feedback.error.error_message}")
        value = getattr(feedback.value, "value", feedback.value)  # MLflow's CategoricalRating is an Enum
        raw = json.dumps({"value": value, "rationale": feedback.rationale}, default=str)
        try:
            score, verdict = self._read(value)
        except ParseError as err:
            return Judgement.missing_because(f"unparsable verdict: {err}", raw=raw)
        return Judgement(score=score, argmax=score, verdict=verdict, reasoning=feedback.rationale, raw=raw,
                         detail={"scorer": self.scorer})

    def _read(self, value: Any) -> tuple[float, str | None]:
        if isinstance(value, (bool, str)) and self.values_of:
            label = str(value).strip().lower()
            if label not in self.values_of:
                raise ParseError(f"{value!r} is not one of {sorted(self.values_of)}")
            return self.values_of[label], label
        if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value):
            if self.values_of and self.scale is None:
                raise ParseError(f"{value!r} is not one of {sorted(self.values_of)}")
            if self.scale and not self.scale[0] <= value <= self.scale[1]:
                raise ParseError(f"{value!r} is outside the scale {self.scale[0]:g}-{self.scale[1]:g}")
            return float(value), None
        raise ParseError(f"{value!r} is neither one of {sorted(self.values_of)} nor a number")


def _resolve(name: str, options: dict[str, Any], column: str, values: dict[str, float]):
    """(model -> the callable that judges one item, the MLflow argument names it reads); fails
    here, naming the rubric, on an unknown scorer, bad options or an argument no item gives."""
    from mlflow.genai import judges, scorers
    from mlflow.genai.scorers import Scorer

    where = f"rubric {column}: scorer {name}"
    found = getattr(scorers, name, None) or getattr(judges, name, None)
    if found is None:
        raise ValueError(f"{where} is neither a scorer of mlflow.genai.scorers nor a judge of mlflow.genai.judges")
    if name == MAKE_JUDGE:
        kind = Literal[tuple(values)] if values else float

        def build(model: str | None):
            return judges.make_judge(name=column, model=model, feedback_value_type=kind, **options)
    elif isinstance(found, type) and issubclass(found, Scorer):
        def build(model: str | None):
            return found(name=column, model=model, **options)
    elif callable(found):
        parameters = set(inspect.signature(found).parameters)
        unknown = set(options) - parameters
        if unknown:
            raise ValueError(f"{where} takes no option(s) {sorted(unknown)}")
        reads = sorted(parameters & set(NEEDS))
        return (lambda model: lambda **given: found(model=model, name=column, **options, **given)), reads
    else:
        raise ValueError(f"{where} is not a scorer class, make_judge or a judge function")
    try:
        with offline():  # building one records a usage event
            fields = {field.name for field in build(None).get_input_fields()}
    except Exception as err:
        raise ValueError(f"{where}: {type(err).__name__}: {err}") from None
    unsupported = fields - set(NEEDS)
    if unsupported:
        raise ValueError(f"{where} reads {sorted(unsupported)}, which a question's item does not give; a scorer that "
                         "reads a trace's retriever span runs here as the judge it calls on the span's documents "
                         "(is_grounded, is_context_sufficient, is_context_relevant)")
    return (lambda model: build(model)), sorted(fields)
