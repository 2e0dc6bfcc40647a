"""The harness's metrics as MLflow GenAI scorers, for ``mlflow.genai.evaluate(data, scorers=[...])``.

Each scorer computes what the harness's own function computes, from what ``mlflow.genai.evaluate``
hands a scorer: ``outputs`` (the answer: a string, or a dict with ``answer`` or ``response``),
``expectations`` (MLflow's reserved names: ``expected_response``, one gold answer or a list of
them; ``expected_facts``; ``expected_retrieved_context``, the gold documents as
``[{"doc_uri": id}]``) and the ``trace``, whose last RETRIEVER span's documents (in rank order, the
document id in ``metadata.doc_uri``) are the retrieved chunks. A row without what a metric needs
gets no value (``None``: MLflow records none), never 0. Names are the harness's column names
(``answer/f1``, ``retrieval/ndcg_at_10``), the names of the Feedback the harness logs on its traces.

Example:
    >>> import mlflow
    >>> from harness.metrics.mlflow_scorers import AnswerF1, RetrievalScorer
    >>> mlflow.genai.evaluate(data=mlflow.search_traces(run_id=run_id),  # doctest: +SKIP
    ...                       scorers=[AnswerF1(), RetrievalScorer(metric="ndcg", k=10)])
"""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from mlflow.entities import SpanType
from mlflow.genai.scorers import Scorer
from pydantic import PrivateAttr, model_validator

from harness.metrics import answer as answers
from harness.metrics import key_facts, ranking
from harness.metrics.bertscore import BERTScorer
from harness.metrics.matching import MATCHERS


def answer_text(outputs: Any) -> str | None:
    """The answer in ``outputs``: the string itself, or a dict's ``answer`` / ``response``."""
    if isinstance(outputs, dict):
        outputs = outputs.get("answer", outputs.get("response"))
    return outputs if isinstance(outputs, str) else None


def gold_answers(expectations: dict[str, Any] | None) -> list[str]:
    """``expected_response`` as a list of accepted answers (one string, or several)."""
    expected = (expectations or {}).get("expected_response")
    golds = [expected] if isinstance(expected, str) else list(expected or [])
    return [gold for gold in golds if isinstance(gold, str)]


def retrieved_documents(trace: Any) -> list[dict[str, Any]] | None:
    """The documents of the trace's last RETRIEVER span, in rank order, as ``{"doc_uri", "content"}``;
    None when the trace has no such span."""
    spans = trace.search_spans(span_type=SpanType.RETRIEVER) if trace is not None else []
    if not spans:
        return None
    documents = []
    for document in spans[-1].outputs or []:
        metadata = document.get("metadata") or {}
        documents.append({"doc_uri": metadata.get("doc_uri", metadata.get("doc_id")),
                          "content": document.get("page_content", "")})
    return documents


class _AnswerScorer(Scorer):
    """Best score of the answer over the gold answers (``max_over_golds``, as the answer suite)."""

    metric: ClassVar[Any]

    def __call__(self, *, outputs: Any = None, expectations: dict[str, Any] | None = None) -> float | None:
        answer, golds = answer_text(outputs), gold_answers(expectations)
        if answer is None or not golds:
            return None
        return answers.max_over_golds(type(self).metric, answer, golds)


class AnswerExactMatch(_AnswerScorer):
    """SQuAD v1.1 exact match (``answer/em``)."""

    name: str = "answer/em"
    metric: ClassVar[Any] = staticmethod(answers.exact_match)


class AnswerF1(_AnswerScorer):
    """SQuAD v1.1 token F1 (``answer/f1``)."""

    name: str = "answer/f1"
    metric: ClassVar[Any] = staticmethod(answers.f1)


class AnswerRougeL(_AnswerScorer):
    """ROUGE-L F-measure, rouge-score without stemming (``answer/rouge_l``)."""

    name: str = "answer/rouge_l"
    metric: ClassVar[Any] = staticmethod(answers.rouge_l)


class AnswerBertScore(Scorer):
    """BERTScore of the answer against its best gold answer (``answer/bertscore_f1``), computed one
    answer at a time, as the answer suite's ``score`` does before a batched ``prepare`` (bert-score
    pads within a batch, which moves MiniLM's scores slightly). idf needs every reference of a run
    at once, so it is not offered here.

    Args:
        model: the encoder (a local folder or id), e.g. conf/metrics/answer.yaml's ``bertscore.model``.
        num_layers: the hidden state used (that file's ``bertscore.num_layers``).
        part: ``precision``, ``recall`` or ``f1``.
        device: ``auto``, ``cpu``, ``cuda``...
    """

    name: str = "answer/bertscore_f1"
    model: str
    num_layers: int
    part: Literal["precision", "recall", "f1"] = "f1"
    device: str = "auto"
    _scorer: BERTScorer | None = PrivateAttr(default=None)

    @model_validator(mode="before")
    @classmethod
    def _named(cls, values: dict[str, Any]) -> dict[str, Any]:
        return {"name": f"answer/bertscore_{values.get('part', 'f1')}", **values}

    def __call__(self, *, outputs: Any = None, expectations: dict[str, Any] | None = None) -> float | None:
        answer, golds = answer_text(outputs), gold_answers(expectations)
        if answer is None or not golds:
            return None
        if self._scorer is None:
            self._scorer = BERTScorer(self.model, self.num_layers, idf=False, device=self.device, threads=1)
        triple = self._scorer.score_max([answer], [golds])[0]
        return triple[("precision", "recall", "f1").index(self.part)]


class RetrievalScorer(Scorer):
    """A ranking metric of the retrieved documents against ``expected_retrieved_context``, as the
    retrieval suite computes it: ``hit`` and ``mrr`` on the chunks in rank order, ``recall``,
    ``ndcg`` and ``map`` on the documents in order of their best chunk, ``context_precision`` on
    the chunks (every gold document counts as relevant, grade 1).

    Args:
        metric: ``hit``, ``mrr``, ``recall``, ``ndcg``, ``map`` or ``context_precision``.
        k: the cut-off (``hit``, ``recall`` and ``ndcg`` need one; ``mrr`` takes one).
    """

    name: str = ""
    metric: Literal["hit", "mrr", "recall", "ndcg", "map", "context_precision"]
    k: int | None = None

    @model_validator(mode="before")
    @classmethod
    def _named(cls, values: dict[str, Any]) -> dict[str, Any]:
        metric, k = values.get("metric"), values.get("k")
        if metric in ("hit", "recall", "ndcg") and k is None:
            raise ValueError(f"RetrievalScorer(metric={metric!r}) needs a cut-off k")
        if metric in ("map", "context_precision") and k is not None:
            raise ValueError(f"RetrievalScorer(metric={metric!r}) takes no cut-off")
        return {"name": f"retrieval/{metric}" + (f"_at_{k}" if k is not None else ""), **values}

    def __call__(self, *, trace: Any = None, expectations: dict[str, Any] | None = None) -> float | None:
        documents = retrieved_documents(trace)
        gold = {entry.get("doc_uri") for entry in (expectations or {}).get("expected_retrieved_context") or []
                if isinstance(entry, dict)} - {None}
        if documents is None or not gold:
            return None
        chunk_grades = [int(document["doc_uri"] in gold) for document in documents]
        doc_grades = [int(doc in gold) for doc in dict.fromkeys(d["doc_uri"] for d in documents)]
        judged = [1] * len(gold)
        if self.metric == "hit":
            return ranking.hit_at_k(chunk_grades, self.k)
        if self.metric == "mrr":
            return ranking.reciprocal_rank(chunk_grades, self.k)
        if self.metric == "recall":
            return ranking.recall_at_k(doc_grades, judged, self.k)
        if self.metric == "ndcg":
            return ranking.ndcg_at_k(doc_grades, judged, self.k)
        if self.metric == "map":
            return ranking.average_precision(doc_grades, judged)
        return ranking.context_precision(chunk_grades)


class KeyFactCoverage(Scorer):
    """Share of ``expected_facts`` found in the retrieved chunks' text (seed 000's coverage,
    ``key_facts/coverage_<matcher>``).

    Args:
        matcher: ``exact`` (case-insensitive substring) or ``fuzzy`` (token overlap), as the suite's.
    """

    name: str = ""
    matcher: Literal["exact", "fuzzy"] = "exact"

    @model_validator(mode="before")
    @classmethod
    def _named(cls, values: dict[str, Any]) -> dict[str, Any]:
        return {"name": f"key_facts/coverage_{values.get('matcher', 'exact')}", **values}

    def __call__(self, *, trace: Any = None, expectations: dict[str, Any] | None = None) -> float | None:
        documents = retrieved_documents(trace)
        facts = [fact for fact in (expectations or {}).get("expected_facts") or [] if isinstance(fact, str)]
        if documents is None or not facts:
            return None
        found = key_facts.facts_found(facts, [d["content"] for d in documents], MATCHERS[self.matcher])
        return sum(found) / len(facts)
