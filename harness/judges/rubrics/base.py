"""What every rubric shares: YAML prompt templates, placeholders, targets, the repair round-trip."""

from __future__ import annotations

import string
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from omegaconf import DictConfig, ListConfig, OmegaConf

from harness.judges.base import Judge, JudgePrompt
from harness.judges.items import TARGETS, JudgeItem
from harness.judges.judgement import Judgement
from harness.judges.rubrics.parsing import ParseError

Messages = tuple[dict[str, str], ...]
ITEM_PLACEHOLDERS = ("question", "answer", "ground_truth", "expected_answer", "contexts")
AUTO = "auto"  # accuracy_threshold measured by the run's own self-check


class AccuracyThreshold:
    """A rubric's ``accuracy_threshold``: a fixed number, ``auto`` or null (no ``_accurate`` column).

    ``auto`` takes the score that best separates right from wrong answers in this run's
    self-check (:func:`harness.judges.selfcheck.youden_threshold`); until the judging stage
    sets it with :meth:`measured`, or when the check could not run, ``value`` is None and the
    ``_accurate`` column is missing (never 0).

    >>> AccuracyThreshold(7, "rubric r").value, AccuracyThreshold("auto", "rubric r").auto
    (7.0, True)
    """

    def __init__(self, setting: Any, where: str) -> None:
        self.setting = setting
        self.auto = setting == AUTO
        self.enabled = setting is not None
        if self.auto or setting is None:
            self.value: float | None = None
            return
        try:
            if isinstance(setting, bool):
                raise ValueError
            self.value = float(setting)
        except (TypeError, ValueError):
            raise ValueError(f"{where}: accuracy_threshold must be a number, 'auto' or null, got {setting!r}") from None

    def measured(self, value: float | None) -> None:
        """Sets an ``auto`` threshold from the run's self-check (a fixed number stays)."""
        if self.auto:
            self.value = value

    def accurate(self, score: float | None) -> float | None:
        """1.0 / 0.0 for a score at or above / below the threshold; None without either."""
        if score is None or self.value is None:
            return None
        return float(score >= self.value)


@dataclass
class Asked:
    """One parsed reply, or why there is none."""

    value: Any = None
    raw: str | None = None
    missing: str | None = None
    repaired: bool = False


def plain(value: Any) -> Any:
    """OmegaConf containers (as Hydra passes them) to plain dicts and lists."""
    if isinstance(value, (DictConfig, ListConfig)):
        return OmegaConf.to_container(value, resolve=True, enum_to_str=True)
    return value


def messages_of(value: Any, where: str) -> Messages:
    messages = plain(value)
    if not messages or not isinstance(messages, list):
        raise ValueError(f"{where}: expected a non-empty list of {{role, content}} messages")
    for index, message in enumerate(messages):
        if not isinstance(message, dict) or set(message) != {"role", "content"}:
            raise ValueError(f"{where}[{index}]: each message needs exactly 'role' and 'content'")
        if message["role"] not in ("system", "user", "assistant"):
            raise ValueError(f"{where}[{index}]: role must be system, user or assistant, got {message['role']!r}")
    return tuple({"role": m["role"], "content": str(m["content"])} for m in messages)


def placeholders_of(template: str, where: str) -> set[str]:
    try:
        fields = [name for _, name, _, _ in string.Formatter().parse(template) if name is not None]
    except ValueError as err:
        raise ValueError(f"{where}: malformed template ({err}); write literal braces as {{{{ and }}}}") from None
    for name in fields:
        if not name.isidentifier():
            raise ValueError(f"{where}: placeholder {{{name}}} must be a plain name")
    return set(fields)


class _Literal(dict):
    """format_map values that leave unknown placeholders as written."""

    def __missing__(self, key: str) -> str:
        return "{" + key + "}"


class Rubric(ABC):
    """A rubric: prompts in YAML, the targets it applies to, and how replies become scores.

    Args:
        column: the per-question table column (``judge/<column>``); targets after the first get
            ``_<target>`` appended (``answer_score_no_context``).
        applies_to: targets among ``with_context``, ``no_context`` and ``retrieval``.
        repair: the message sent back once when a reply is unparsable; ``{error}`` says what was wrong.
        context_item: how one context renders into ``{contexts}`` (``{rank}``, ``{title}``, ``{text}``).
        context_separator: what joins the rendered contexts.
    """

    # rubrics with an ``_accurate`` column replace it (ScoreRubric, LikelihoodRubric)
    accuracy_threshold = AccuracyThreshold(None, "rubric")
    # what the rubric needs its judge to answer (Judge.answers): its own prompts, by default
    asks = "prompts"

    def __init__(self, *, column: str, applies_to: list[str], repair: str, context_item: str,
                 context_separator: str, settings: Mapping[str, Any]) -> None:
        self.column = column
        self.applies_to = list(plain(applies_to))
        unknown = [t for t in self.applies_to if t not in TARGETS]
        if unknown or not self.applies_to or len(set(self.applies_to)) != len(self.applies_to):
            raise ValueError(f"rubric {column}: applies_to must be distinct targets from {list(TARGETS)}, "
                             f"got {self.applies_to}")
        self.repair, self.context_item, self.context_separator = repair, context_item, context_separator
        placeholders_of(repair, f"rubric {column}: repair")
        placeholders_of(context_item, f"rubric {column}: context_item")
        # Every setting, prompt texts included: a rubric edit changes the cache key.
        self._settings = {"type": type(self).__name__, "column": column, "applies_to": self.applies_to,
                          "repair": repair, "context_item": context_item,
                          "context_separator": context_separator, **plain(dict(settings))}

    # --- what subclasses provide --------------------------------------------------------------
    @abstractmethod
    def evaluate(self, judge: Judge, items: list[JudgeItem], sample: int = 0) -> list[Judgement]:
        """One judgement per item (a failure is a missing judgement, never an exception)."""

    @abstractmethod
    def columns(self, target: str) -> list[str]:
        """The score columns this rubric fills for a target (None when its judgement is missing)."""

    @abstractmethod
    def values(self, judgement: Judgement, item: JudgeItem) -> dict[str, float | None]:
        """Per-question table values of one judgement."""

    @abstractmethod
    def templates(self) -> dict[str, tuple[str, set[str]]]:
        """Every prompt template by name, with the placeholders it may use."""

    # --- shared ------------------------------------------------------------------------------
    def fingerprint(self) -> dict[str, Any]:
        return self._settings

    def column_for(self, target: str) -> str:
        return self.column if target == self.applies_to[0] else f"{self.column}_{target}"

    def check_templates(self) -> None:
        """Fails at construction on a placeholder the template's context does not provide."""
        for where, (template, allowed) in self.templates().items():
            unknown = placeholders_of(template, f"rubric {self.column}: {where}") - allowed
            if unknown:
                raise ValueError(f"rubric {self.column}: {where} uses unknown placeholder(s) "
                                 f"{sorted('{' + u + '}' for u in unknown)}; allowed: "
                                 f"{sorted('{' + a + '}' for a in allowed)}")
        if "no_context" in self.applies_to and "contexts" in self.item_placeholders():
            raise ValueError(f"rubric {self.column}: applies to no_context answers but its prompt uses "
                             f"{{contexts}}, which that condition does not have")

    def item_placeholders(self) -> set[str]:
        used: set[str] = set()
        for where, (template, _) in self.templates().items():
            used |= placeholders_of(template, where) & set(ITEM_PLACEHOLDERS)
        return used

    def not_applicable(self, item: JudgeItem) -> str | None:
        """Why the item cannot be judged by this rubric (a placeholder has no value), or None."""
        for name in sorted(self.item_placeholders()):
            if name == "contexts" and item.contexts is None:
                return "the answering system did not report its contexts"
            if name != "contexts" and getattr(item, name) is None:
                return f"question has no {name}"
        return None

    def item_values(self, item: JudgeItem) -> dict[str, str]:
        contexts = self.context_separator.join(
            self.context_item.format(rank=rank, title=title, text=text)
            for rank, (title, text) in enumerate(item.contexts or (), start=1))
        return {"question": item.question, "answer": item.answer or "", "ground_truth": item.ground_truth or "",
                "expected_answer": item.expected_answer or "", "contexts": contexts}

    def render(self, messages: Messages, values: Mapping[str, str]) -> Messages:
        return tuple({"role": m["role"], "content": m["content"].format(**values)} for m in messages)

    def cache_payload(self, item: JudgeItem) -> Any:
        """Every prompt template rendered with the item's values (placeholders filled later, such
        as a claim or an earlier field's score, stay literal): what reaches the judge."""
        values = _Literal(self.item_values(item))
        return {"target": item.target,
                "prompts": {where: template.format_map(values) for where, (template, _) in self.templates().items()}}

    def reply_schema(self) -> dict[str, Any] | None:
        """The JSON schema of a well-formed reply, sent to judges on servers with structured output
        (``response_format``); None where the reply is not one JSON object."""
        return None

    def ask(self, judge: Judge, conversations: list[Messages], parse: Callable[[str], Any], sample: int,
            prefix: str = "") -> list[Asked]:
        """Sends the prompts, parses the replies strictly, and gives each unparsable reply one
        repair round-trip (the bad reply plus the rubric's ``repair`` message naming the error)."""
        schema = self.reply_schema()
        replies = judge.complete([JudgePrompt(tuple(c), prefix, schema) for c in conversations], sample)
        results: list[Asked | None] = [None] * len(conversations)
        retry: list[tuple[int, str, ParseError]] = []
        for index, reply in enumerate(replies):
            if reply.error is not None:
                results[index] = Asked(missing=f"judge call failed: {reply.error}")
                continue
            try:
                results[index] = Asked(value=parse(reply.text), raw=reply.text)
            except ParseError as err:
                retry.append((index, reply.text, err))
        if retry:
            repairs = [tuple(conversations[i]) + ({"role": "assistant", "content": text},
                                                  {"role": "user", "content": self.repair.format(error=err)})
                       for i, text, err in retry]
            again = judge.complete([JudgePrompt(c, prefix, schema) for c in repairs], sample)
            for (index, text, err), reply in zip(retry, again):
                if reply.error is not None:
                    results[index] = Asked(raw=text, missing=f"unparsable reply ({err}); the repair call failed: "
                                                             f"{reply.error}")
                    continue
                try:
                    results[index] = Asked(value=parse(reply.text), raw=reply.text, repaired=True)
                except ParseError as second:
                    results[index] = Asked(raw=reply.text,
                                           missing=f"unparsable after one repair: {second} (first reply: {err})")
        return results  # type: ignore[return-value]
