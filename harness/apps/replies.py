"""What an app answers, read into one shape: the answer, the contexts it used, what it reports.

An app may return:

* a string: the answer alone (its contexts unknown: no retrieval metric is scored);
* ``(answer, contexts)``;
* an object (a dict, or any object with these attributes): ``answer`` (or ``response``,
  ``output``), ``contexts`` (or ``retrieved_contexts``, ``source_documents``), and optionally
  ``input_tokens``, ``output_tokens``, ``cost_usd``.

Each context is a string or an object with its text (``text``, ``content``, ``page_content``),
and optionally its document id (``doc_id``, ``document_id``, ``id``, ``source``; also inside a
``metadata`` object, as LangChain documents carry it) and ``score``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

ANSWER_NAMES = ("answer", "response", "output")
CONTEXTS_NAMES = ("contexts", "retrieved_contexts", "source_documents")
TEXT_NAMES = ("text", "content", "page_content")
DOC_ID_NAMES = ("doc_id", "document_id", "doc_uri", "id", "source")
COUNT_NAMES = ("input_tokens", "output_tokens")


class MalformedReply(ValueError):
    """The app's reply holds no answer, or contexts that cannot be read; the question fails with this reason."""


@dataclass(frozen=True)
class AppContext:
    text: str
    doc_id: str | None = None
    score: float | None = None


@dataclass
class AppReply:
    """One question's reply; ``error`` says why the call failed (then nothing else counts)."""

    answer: str = ""
    contexts: list[AppContext] | None = None
    input_tokens: int | None = None
    output_tokens: int | None = None
    cost_usd: float | None = None
    latency_seconds: float | None = None
    error: str | None = None
    cached: bool = False
    # The MLflow trace the app wrote for this question, when its contexts were read from it.
    trace_id: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"answer": self.answer, "input_tokens": self.input_tokens, "output_tokens": self.output_tokens,
                "cost_usd": self.cost_usd, "latency_seconds": self.latency_seconds, "trace_id": self.trace_id,
                "contexts": None if self.contexts is None else [vars(c) for c in self.contexts]}

    @classmethod
    def from_json(cls, row: dict[str, Any]) -> "AppReply":
        contexts = row.pop("contexts")
        return cls(**row, contexts=None if contexts is None else [AppContext(**c) for c in contexts])


@dataclass
class TracedReply:
    """An app's reply with what its own trace held: the documents of its RETRIEVER spans (None: it
    had none) and the trace's id."""

    reply: Any
    documents: list[Any] | None = None
    trace_id: str | None = None
    seconds: float | None = None  # the app's own call (the trace read afterwards is not its latency)


def _get(value: Any, names: tuple[str, ...]) -> Any:
    for name in names:
        found = value.get(name) if isinstance(value, dict) else getattr(value, name, None)
        if found is not None:
            return found
    return None


def read_reply(value: Any) -> AppReply:
    """The reply in one shape.

    Raises:
        MalformedReply: naming what is wrong with it.

    Example:
        >>> read_reply({"answer": "Paris", "contexts": ["Paris is...", {"text": "France", "doc_id": "fr"}]}).contexts
        [AppContext(text='Paris is...', doc_id=None, score=None), AppContext(text='France', doc_id='fr', score=None)]
    """
    if isinstance(value, TracedReply):
        reply = read_reply(value.reply)
        if reply.contexts is None and value.documents is not None:  # the contexts on the app's trace
            reply.contexts = _contexts(value.documents)
        reply.trace_id = value.trace_id
        return reply
    if isinstance(value, str):
        return AppReply(answer=value)
    if isinstance(value, (tuple, list)) and len(value) == 2:
        answer, contexts = value
        return AppReply(answer=_answer(answer), contexts=_contexts(contexts))
    answer = _get(value, ANSWER_NAMES)
    if answer is None:
        raise MalformedReply(f"the app's reply has no answer (expected a string, (answer, contexts), or an object "
                             f"with one of {list(ANSWER_NAMES)}), got {_shown(value)}")
    contexts = _get(value, CONTEXTS_NAMES)
    counts = {name: _count(_get(value, (name,)), name) for name in COUNT_NAMES}
    cost = _get(value, ("cost_usd",))
    if cost is not None and (isinstance(cost, bool) or not isinstance(cost, (int, float)) or cost < 0):
        raise MalformedReply(f"the app's reply has cost_usd {cost!r}; expected a number >= 0")
    return AppReply(answer=_answer(answer), contexts=None if contexts is None else _contexts(contexts),
                    cost_usd=None if cost is None else float(cost), **counts)


def _answer(value: Any) -> str:
    if not isinstance(value, str):
        raise MalformedReply(f"the app's answer must be a string, got {type(value).__name__}")
    return value


def _count(value: Any, name: str) -> int | None:
    if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 0):
        raise MalformedReply(f"the app's reply has {name} {value!r}; expected an integer >= 0")
    return value


def _contexts(value: Any) -> list[AppContext]:
    if not isinstance(value, (list, tuple)):
        raise MalformedReply(f"the app's contexts must be a list, got {type(value).__name__}")
    return [_context(item, index) for index, item in enumerate(value)]


def _context(item: Any, index: int) -> AppContext:
    if isinstance(item, str):
        return AppContext(text=item)
    text = _get(item, TEXT_NAMES)
    if not isinstance(text, str):
        raise MalformedReply(f"the app's contexts[{index}] has no text (one of {list(TEXT_NAMES)}), got {_shown(item)}")
    metadata = _get(item, ("metadata",))
    doc_id = _get(item, DOC_ID_NAMES)
    if doc_id is None and isinstance(metadata, dict):
        doc_id = _get(metadata, DOC_ID_NAMES)
    score = _get(item, ("score",))
    if score is not None and (isinstance(score, bool) or not isinstance(score, (int, float))):
        raise MalformedReply(f"the app's contexts[{index}] has score {score!r}; expected a number")
    return AppContext(text=text, doc_id=None if doc_id is None else str(doc_id),
                      score=None if score is None else float(score))


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 120 else text[:117] + "..."
