"""What an app answers, read into one shape: the answer, the contexts it used, what it reports.

An app may return:

* a string: the answer alone (its contexts unknown: no retrieval metric is scored);
* ``(answer, contexts)``;
* an object (a dict, or any object with these attributes): ``answer`` (or ``response``,
  ``output``), ``contexts`` (or ``retrieved_contexts``, ``source_documents``), and optionally
  ``input_tokens``, ``output_tokens``, ``cost_usd``.

Each context is a string or an object with its text (``text``, ``content``, ``page_content``),
optionally its ``score``, and the names of its document, read from the fields the frameworks fill
(every one kept, in this order, for :mod:`harness.apps.contexts` to match against the documents):
``doc_id``, ``document_id``, ``doc_uri``, then inside its ``metadata`` (LangChain, LlamaIndex) or
``meta`` (Haystack) ``doc_id``, ``document_id``, ``source`` (LangChain's loaders: the file's path),
``file_path``, ``file_name`` (LlamaIndex's ``SimpleDirectoryReader``), then its own ``source``,
``ref_doc_id`` (a LlamaIndex node's document) and ``id`` (``id_``, ``node_id``). A LlamaIndex
``NodeWithScore`` is read through its ``node``, with its ``score``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

ANSWER_NAMES = ("answer", "response", "output")
CONTEXTS_NAMES = ("contexts", "retrieved_contexts", "source_documents")
TEXT_NAMES = ("text", "content", "page_content")
DOC_ID_NAMES = ("doc_id", "document_id", "doc_uri")
# Inside a context's metadata (LangChain, LlamaIndex) or meta (Haystack): the loaders' file path and name.
METADATA_ID_NAMES = ("doc_id", "document_id", "doc_uri", "source", "file_path", "file_name")
# The context object's own ids, last: often a chunk's or node's own id (a uuid, a content hash).
OWN_ID_NAMES = ("source", "ref_doc_id", "id", "id_", "node_id")
METADATA_NAMES = ("metadata", "meta")
COUNT_NAMES = ("input_tokens", "output_tokens")


class MalformedReply(ValueError):
    """The app's reply holds no answer, or contexts that cannot be read; the question fails with this reason."""


@dataclass(frozen=True)
class AppContext:
    """One context: its text, the first name of its document it gave (``doc_id``), every name it
    gave (``names``, in the order of :data:`DOC_ID_NAMES`, :data:`METADATA_ID_NAMES`,
    :data:`OWN_ID_NAMES`) and its score."""

    text: str
    doc_id: str | None = None
    score: float | None = None
    names: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.doc_id is not None and not self.names:
            object.__setattr__(self, "names", (self.doc_id,))
        object.__setattr__(self, "names", tuple(self.names))


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
        found = _field(value, name)
        if found is not None:
            return found
    return None


def read_reply(value: Any) -> AppReply:
    """The reply in one shape.

    Raises:
        MalformedReply: naming what is wrong with it.

    Example:
        >>> read_reply({"answer": "Paris", "contexts": ["Paris is...", {"text": "France", "doc_id": "fr"}]}).contexts
        [AppContext(text='Paris is...', doc_id=None, score=None, names=()), AppContext(text='France', doc_id='fr', score=None, names=('fr',))]
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
    node = _get(item, ("node",))  # a LlamaIndex NodeWithScore: the node, with the retriever's score
    score = _get(item, ("score",))
    if node is not None and not isinstance(item, dict):
        item = node
    text = _get(item, TEXT_NAMES)
    if not isinstance(text, str):
        raise MalformedReply(f"the app's contexts[{index}] has no text (one of {list(TEXT_NAMES)}), got {_shown(item)}")
    if score is not None and (isinstance(score, bool) or not isinstance(score, (int, float))):
        raise MalformedReply(f"the app's contexts[{index}] has score {score!r}; expected a number")
    names = _names(item)
    return AppContext(text=text, doc_id=names[0] if names else None,
                      score=None if score is None else float(score), names=names)


def _names(item: Any) -> tuple[str, ...]:
    """Every name of the context's document it carries, in the order they are tried (no repeats)."""
    metadata = _get(item, METADATA_NAMES)
    found = [_field(item, name) for name in DOC_ID_NAMES]
    if isinstance(metadata, dict):
        found += [metadata.get(name) for name in METADATA_ID_NAMES]
    found += [_field(item, name) for name in OWN_ID_NAMES]
    return tuple(dict.fromkeys(str(name) for name in found if isinstance(name, (str, int)) and str(name)))


def _field(value: Any, name: str) -> Any:
    try:
        return value.get(name) if isinstance(value, dict) else getattr(value, name, None)
    except Exception:  # noqa: BLE001 - a framework property that cannot be read here (e.g. no source node)
        return None


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 120 else text[:117] + "..."
