"""The answer suite: lexical, semantic and grounding metrics of generated answers, plus the
error taxonomy and badness of seed 003 (sections 2, 3, 4 and 6).

Per question (keys, namespaced by the pipeline, e.g. ``answer/f1``): ``em``, ``f1``, ``rouge_l``
(best over the gold answers), ``bertscore_precision|recall|f1`` (when configured),
``faithfulness`` (local; absent for an answer without tokens), ``n_tokens``, ``badness`` and one
``category_<name>`` flag (1.0/0.0) per taxonomy category. A question without a generation (a
retrieval-only run), with a failed generation, or without a gold answer scores ``{}``: the
failure is reported by the pipeline, never scored as 0, unless it is to count as a miss
(``app.on_failure``, ``generation.on_failure``: ``miss``): then it is scored as an empty answer. An unanswerable SQuAD v2.0 question
scores ``em`` and ``f1`` by the official v2.0 rule (1 for an empty answer) and ``unanswerable``.
"""

from __future__ import annotations

import json

from collections.abc import Mapping
from typing import Any

from harness.cache import DiskCache
from harness.generators.base import FAILED_AS_MISS, MISSING_PREDICTION
from harness.metrics import answer as metrics
from harness.metrics.bertscore import BERTScorer, Triple
from harness.metrics.suites import MetricSuite, Scores, mean_by_key
from harness.metrics.taxonomy import (CATEGORIES, TaxonomyThresholds, badness, check_badness_weights,
                                      classify, worst)
from harness.results.records import QuestionRecord

BERTSCORE_KEYS = ("model", "num_layers", "idf", "baseline", "batch_size", "device", "threads")
OPTIONAL_BERTSCORE_KEYS = {"threads": "auto"}


def golds_of(record: QuestionRecord) -> tuple[str, ...]:
    """The accepted gold answers: ``answers``, else ``(ground_truth,)``, else none."""
    question = record.question
    if question.answers:
        return tuple(question.answers)
    return (question.ground_truth,) if question.ground_truth is not None else ()


def _scoreable(record: QuestionRecord) -> bool:
    """An answer to score: one that did not fail, or a failed one scored as a miss (its text is empty)."""
    generation = record.generation
    return (generation is not None and (not generation.failed or bool(generation.extra.get(FAILED_AS_MISS)))
            and bool(golds_of(record)) and not _missing(record))


def _missing(record: QuestionRecord) -> bool:
    """No prediction for the question, to be scored as wrong (predictions ``on_missing=zero``)."""
    return record.generation is not None and bool(record.generation.extra.get(MISSING_PREDICTION))


def _unanswerable(record: QuestionRecord) -> bool:
    """A SQuAD v2.0 ``is_impossible`` question with an answer to score."""
    return (bool(record.question.metadata.get("is_impossible")) and record.generation is not None
            and not record.generation.failed)


class AnswerSuite(MetricSuite):
    """Scores generated answers against the question's gold answers.

    Args:
        bertscore: BERTScorer options (``model``, ``num_layers``, ``idf``, ``baseline``,
            ``batch_size``, ``device``, optional ``threads``), or None to skip BERTScore.
        taxonomy: the decision flow's thresholds (the fields of
            :class:`~harness.metrics.taxonomy.TaxonomyThresholds`).
        badness_weights: weights of ``f1``, ``faithfulness`` and ``em`` in the badness score.
        worst_n: how many of the worst answers :meth:`worst_rows` returns.

    Call :meth:`prepare` with every record before scoring so BERTScore runs as one batched call
    (required with ``idf``, whose statistics span all references); otherwise :meth:`score`
    computes it per question.
    """

    def __init__(self, bertscore: Mapping[str, Any] | None, taxonomy: Mapping[str, Any],
                 badness_weights: Mapping[str, float], worst_n: int) -> None:
        self.thresholds = TaxonomyThresholds.from_mapping(dict(taxonomy))
        self.badness_weights = check_badness_weights(dict(badness_weights))
        if int(worst_n) < 0:
            raise ValueError(f"worst_n must be >= 0, got {worst_n}")
        self.worst_n = int(worst_n)
        self.bertscore = _bertscore_options(bertscore)
        self._scorer: BERTScorer | None = None
        self._prepared: dict[str, tuple[str, tuple[str, ...], Triple]] = {}

    def prepare(self, records: list[QuestionRecord], cache: DiskCache | None = None) -> None:
        """Computes BERTScore of every scoreable record in one batched call; ``cache`` keeps
        the reference embeddings on disk across jobs."""
        if self.bertscore is None:
            return
        scorer = self._bertscorer(cache)
        todo = [record for record in records if _scoreable(record)]
        results = scorer.score_max_cached([r.generation.text for r in todo], [list(golds_of(r)) for r in todo])
        self._prepared = {r.question.id: (r.generation.text, golds_of(r), triple) for r, triple in zip(todo, results)}

    def score(self, record: QuestionRecord) -> Scores:
        if _missing(record):  # the official SQuAD v1.1 script: an unanswered question scores 0
            return {"em": 0.0, "f1": 0.0}
        if _unanswerable(record):
            # SQuAD v2.0's official rule: the only right answer is none, so EM = F1 = 1 for an
            # empty (abstaining) prediction and 0 otherwise; the other metrics need a gold text.
            abstained = float(not metrics.answer_tokens(record.generation.text))
            return {"em": abstained, "f1": abstained, "unanswerable": 1.0}
        if not _scoreable(record):
            return {}
        golds = golds_of(record)
        prediction = record.generation.text
        contexts = record.contexts  # None: unknown, so no faithfulness and no retrieval rule
        em = metrics.max_over_golds(metrics.exact_match, prediction, golds)
        f1 = metrics.max_over_golds(metrics.f1, prediction, golds)
        rouge_l = metrics.max_over_golds(metrics.rouge_l, prediction, golds)
        faithfulness = metrics.local_faithfulness(prediction, contexts) if contexts is not None else None
        n_tokens = len(metrics.answer_tokens(prediction))
        categories = classify(
            em=em, f1=f1, rouge_l=rouge_l, faithfulness=faithfulness, empty=not prediction.strip(),
            gt_in_contexts=metrics.answer_in_contexts(golds, contexts) if contexts is not None else None,
            n_tokens=n_tokens,
            thresholds=self.thresholds)
        scores: Scores = {"em": em, "f1": f1, "rouge_l": rouge_l}
        if self.bertscore is not None:
            precision, recall, f = self._bertscore_of(record.question.id, prediction, golds)
            scores.update(bertscore_precision=precision, bertscore_recall=recall, bertscore_f1=f)
        if faithfulness is not None:
            scores["faithfulness"] = faithfulness
        scores["n_tokens"] = float(n_tokens)
        scores["badness"] = badness(f1, faithfulness, em, self.badness_weights)
        for name in CATEGORIES:
            scores[f"category_{name}"] = 1.0 if name in categories else 0.0
        return scores

    def aggregate(self, rows: list[Scores]) -> Scores:
        """Means over the scored questions (``category_<name>`` means are shares), plus
        ``count_<name>``: how many questions fell in each category."""
        aggregates = mean_by_key(rows)
        for name in CATEGORIES:
            aggregates[f"count_{name}"] = float(sum(row.get(f"category_{name}", 0.0) for row in rows))
        return aggregates

    def worst_rows(self, rows: list[Mapping[str, Any]], n: int | None = None,
                   key: str = "badness") -> list[Mapping[str, Any]]:
        """The ``n`` (default ``worst_n``) rows with the lowest badness, worst first.

        ``key`` names the badness column: ``answer/badness`` in the pipeline's namespaced rows.
        """
        return worst(rows, self.worst_n if n is None else n, key=key)

    def artifacts(self, records: list[QuestionRecord], rows: list[Scores]) -> dict[str, str]:
        """``worst_answers.json``: the ``worst_n`` answers by composite badness, for inspection."""
        scored = [{"question_id": r.question.id, "question": r.question.text, "answer": r.generation.text,
                   "gold_answers": list(r.question.answers), "categories": sorted(
                       k.removeprefix("category_") for k, v in row.items() if k.startswith("category_") and v),
                   **{k: v for k, v in row.items() if not k.startswith("category_")}}
                  for r, row in zip(records, rows) if row]
        if not scored:
            return {}
        return {"worst_answers.json": json.dumps(self.worst_rows(scored), indent=2)}

    def _bertscorer(self, cache: DiskCache | None = None) -> BERTScorer:
        if self._scorer is None:
            self._scorer = BERTScorer(**self.bertscore, cache=cache)
        elif cache is not None:
            self._scorer.cache = cache
        return self._scorer

    def _bertscore_of(self, question_id: str, prediction: str, golds: tuple[str, ...]) -> Triple:
        prepared = self._prepared.get(question_id)
        if prepared is not None and prepared[0] == prediction and prepared[1] == golds:
            return prepared[2]
        if self.bertscore["idf"]:
            raise ValueError("BERTScore with idf=true needs prepare(records) before score(): "
                             "its idf statistics come from the references of every question")
        return self._bertscorer().score_max([prediction], [list(golds)])[0]


def _bertscore_options(options: Mapping[str, Any] | None) -> dict[str, Any] | None:
    if options is None:
        return None
    options = {**OPTIONAL_BERTSCORE_KEYS, **dict(options)}
    if set(options) != set(BERTSCORE_KEYS):
        missing = sorted(set(BERTSCORE_KEYS) - set(options))
        unknown = sorted(set(options) - set(BERTSCORE_KEYS))
        raise ValueError(f"bertscore: missing keys {missing}, unknown keys {unknown}; expected {list(BERTSCORE_KEYS)}")
    baseline = options["baseline"]
    options["baseline"] = None if baseline is None else {k: float(v) for k, v in dict(baseline).items()}
    options["num_layers"] = int(options["num_layers"])
    options["batch_size"] = int(options["batch_size"])
    options["idf"] = bool(options["idf"])
    options["model"] = str(options["model"])
    options["device"] = str(options["device"])
    # Validates the options now (a bad value fails at instantiation, not mid-run); loads nothing.
    BERTScorer(**options)
    return options
