"""Metric suites: named groups of per-question metrics and how they aggregate.

A suite scores one :class:`~harness.results.records.QuestionRecord` at a time; the pipeline namespaces
its keys with the suite's config name (``retrieval/ndcg_at_10``). Per-question values are the
unit of truth; aggregates are derived from them.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any

from harness.cache import DiskCache
from harness.metrics import key_facts as kf
from harness.metrics import ranking
from harness.results.records import QuestionRecord

Scores = dict[str, float]


class MetricSuite(ABC):
    """Per-question scores plus their aggregation (mean over the questions that have a value)."""

    @abstractmethod
    def score(self, record: QuestionRecord) -> Scores:
        """Metric values for one question; absent keys mean "not applicable" (no gold data)."""

    def aggregate(self, rows: list[Scores]) -> Scores:
        return mean_by_key(rows)

    def prepare(self, records: list[QuestionRecord], cache: DiskCache | None = None) -> None:
        """Called once with every record before scoring (batch work such as BERTScore);
        ``cache`` is the run's disk cache, for work worth keeping across the jobs of a sweep."""

    def artifacts(self, records: list[QuestionRecord], rows: list[Scores]) -> dict[str, str]:
        """Extra files for the run (file name -> text); ``rows`` are this suite's per-question scores."""
        return {}

    @classmethod
    def sweep_summary(cls, summaries: list[dict[str, Any]], title: str, console=None, brief: bool = False) -> None:
        """Prints the suite's own table after a run or sweep, from the jobs' summaries (each with
        ``name``, ``job_num``, ``status`` and aggregate ``metrics``); ``brief``: a compact form for
        the one-screen summary. A class method: the sweep's end needs no suite instance (and loads
        no model). Prints nothing by default."""


class DerivedSuite(MetricSuite):
    """A suite computed from the other suites' per-question columns, over the whole run at once
    (e.g. z-scores need every question): the pipeline calls :meth:`derive` after every other suite."""

    def score(self, record: QuestionRecord) -> Scores:
        return {}

    @abstractmethod
    def derive(self, columns: list[dict[str, float]]) -> list[Scores]:
        """One score dict per question, from each question's namespaced columns (``answer/f1``...)."""


def mean_by_key(rows: list[Scores], skip: frozenset[str] = frozenset()) -> Scores:
    sums: dict[str, float] = {}
    counts: dict[str, int] = {}
    for row in rows:
        for key, value in row.items():
            if key in skip or value is None:
                continue
            sums[key] = sums.get(key, 0.0) + float(value)
            counts[key] = counts.get(key, 0) + 1
    return {key: sums[key] / counts[key] for key in sums}


class RetrievalSuite(MetricSuite):
    """Hit@k, MRR, Recall@k, nDCG@k, MAP and rank-weighted context precision.

    Hit@k, MRR and context precision read the ranked chunks (rank = position of the first chunk
    from a gold document, as the generator sees them). Recall, nDCG and MAP read the document
    ranking obtained by keeping each document's best chunk, graded by the qrels (trec_eval's
    conventions, as BEIR reports them). With whole-document chunks the two rankings coincide.

    Args:
        ks: cut-offs; a cut-off above the retriever's ``top_k`` is skipped.
    """

    def __init__(self, ks: list[int]) -> None:
        if not ks or any(k < 1 for k in ks):
            raise ValueError(f"ks must be a non-empty list of cut-offs >= 1, got {ks}")
        self.ks = sorted(set(ks))

    def score(self, record: QuestionRecord) -> Scores:
        relevant = record.question.relevant
        if not any(grade > 0 for grade in relevant.values()) or not record.has_ranking:
            return {}
        chunk_grades = [relevant.get(chunk.doc_id, 0) for chunk in record.chunks]
        doc_grades = [relevant.get(doc_id, 0) for doc_id in record.ranked_doc_ids()]
        judged = list(relevant.values())
        scores: Scores = {}
        for k in (k for k in self.ks if k <= record.top_k):
            scores[f"hit_at_{k}"] = ranking.hit_at_k(chunk_grades, k)
            scores[f"mrr_at_{k}"] = ranking.reciprocal_rank(chunk_grades, k)
            scores[f"recall_at_{k}"] = ranking.recall_at_k(doc_grades, judged, k)
            scores[f"ndcg_at_{k}"] = ranking.ndcg_at_k(doc_grades, judged, k)
        scores["mrr"] = ranking.reciprocal_rank(chunk_grades)
        scores["map"] = ranking.average_precision(doc_grades, judged)
        scores["context_precision"] = ranking.context_precision(chunk_grades)
        return scores


class KeyFactSuite(MetricSuite):
    """Key-fact coverage of the retrieved text (seed 000).

    ``coverage_<matcher>`` is the share of a question's key facts found in the concatenated
    chunks; its ``_micro`` aggregate is found/total over all facts (the seed's 47/53 = 88.7%).
    ``position_weighted`` (option 1) and ``rank_banded`` (option 3) credit facts by the rank of
    the chunk holding them, matched exactly as the seed's ``fact in chunk``.
    """

    def __init__(self, matchers: list[str], position_weights: list[float], rank_bands: list[Any],
                 position_fact_score: str = "first_hit") -> None:
        unknown = [m for m in matchers if m not in kf.MATCHERS]
        if unknown:
            raise ValueError(f"matchers: unknown {unknown}; choose from {sorted(kf.MATCHERS)}")
        self.matchers = list(matchers)
        self.position_weights = [float(w) for w in position_weights]
        self.rank_bands = [(int(b["max_rank"]), float(b["weight"])) for b in rank_bands]
        self.position_fact_score = position_fact_score
        # Validate the bands and the fact-score mode once, up front, with the functions' own checks.
        kf.rank_banded_recall(["x"], ["x"], self.rank_bands, kf.exact_match)
        kf.position_weighted_coverage(["x"], ["x"], self.position_weights, kf.exact_match,
                                      fact_score=position_fact_score)

    def score(self, record: QuestionRecord) -> Scores:
        facts = list(record.question.key_facts)
        if not facts or not record.has_ranking:
            return {}
        texts = [chunk.text for chunk in record.chunks]
        scores: Scores = {"facts": float(len(facts))}
        for name in self.matchers:
            found = kf.facts_found(facts, texts, kf.MATCHERS[name])
            scores[f"found_{name}"] = float(sum(found))
            scores[f"coverage_{name}"] = sum(found) / len(facts)
        scores["position_weighted"] = kf.position_weighted_coverage(
            facts, texts, self.position_weights, kf.exact_match, fact_score=self.position_fact_score)
        scores["rank_banded"] = kf.rank_banded_recall(facts, texts, self.rank_bands, kf.exact_match)
        return scores

    def aggregate(self, rows: list[Scores]) -> Scores:
        counts = frozenset({"facts"} | {f"found_{m}" for m in self.matchers})
        aggregates = mean_by_key(rows, skip=counts)
        total = sum(row.get("facts", 0.0) for row in rows)
        if total:
            for name in self.matchers:
                aggregates[f"coverage_{name}_micro"] = sum(row.get(f"found_{name}", 0.0) for row in rows) / total
        return aggregates
