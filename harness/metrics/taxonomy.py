"""Error taxonomy and composite badness (seed 003 section 6).

:func:`classify` follows the seed's decision flow; every threshold arrives in a
:class:`TaxonomyThresholds` built from YAML. Categories are multi-label except ``correct``
and ``empty_response``, which stop the flow.

Example:
    >>> t = TaxonomyThresholds(correct_f1=0.8, hallucination_faithfulness=0.5,
    ...     low_relevance_faithfulness=0.5, incomplete_max_tokens=3, incomplete_f1=0.3,
    ...     verbose_rouge_l=0.4, verbose_f1=0.5, wrong_f1=0.3)
    >>> classify(em=0.0, f1=0.4, rouge_l=0.45, faithfulness=1.0, empty=False,
    ...          gt_in_contexts=True, n_tokens=6, thresholds=t)
    ['verbose_answer']
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

CORRECT = "correct"
EMPTY_RESPONSE = "empty_response"
RETRIEVAL_FAILURE = "retrieval_failure"
HALLUCINATION = "hallucination"
LOW_CONTEXT_RELEVANCE = "low_context_relevance"
INCOMPLETE_ANSWER = "incomplete_answer"
VERBOSE_ANSWER = "verbose_answer"
WRONG_ANSWER = "wrong_answer"

CATEGORIES = (CORRECT, EMPTY_RESPONSE, RETRIEVAL_FAILURE, HALLUCINATION, LOW_CONTEXT_RELEVANCE,
              INCOMPLETE_ANSWER, VERBOSE_ANSWER, WRONG_ANSWER)
BADNESS_TERMS = ("f1", "faithfulness", "em")


@dataclass(frozen=True)
class TaxonomyThresholds:
    """The decision flow's thresholds (the seed's values live in the suite's YAML).

    Attributes:
        correct_f1: F1 at or above which an answer is correct.
        hallucination_faithfulness: faithfulness below which an answer with F1 > 0 is a hallucination.
        low_relevance_faithfulness: faithfulness below which an answer is low_context_relevance.
        incomplete_max_tokens: an answer with *fewer* normalized tokens than this may be incomplete.
        incomplete_f1: F1 below which a short answer is incomplete.
        verbose_rouge_l: ROUGE-L above which a non-exact answer may be verbose.
        verbose_f1: F1 below which such an answer is verbose.
        wrong_f1: F1 below which a non-exact answer is wrong.
    """

    correct_f1: float
    hallucination_faithfulness: float
    low_relevance_faithfulness: float
    incomplete_max_tokens: int
    incomplete_f1: float
    verbose_rouge_l: float
    verbose_f1: float
    wrong_f1: float

    @classmethod
    def from_mapping(cls, values: Mapping[str, Any]) -> TaxonomyThresholds:
        """Builds thresholds from a config mapping; a missing or unknown key raises naming it."""
        names = [f.name for f in fields(cls)]
        missing = [n for n in names if n not in values]
        unknown = [k for k in values if k not in names]
        if missing or unknown:
            raise ValueError(f"taxonomy: missing keys {missing}, unknown keys {unknown}; expected {names}")
        return cls(**{n: (int(values[n]) if n == "incomplete_max_tokens" else float(values[n])) for n in names})


def classify(em: float, f1: float, rouge_l: float, faithfulness: float | None, empty: bool,
             gt_in_contexts: bool | None, n_tokens: int, thresholds: TaxonomyThresholds) -> list[str]:
    """Error categories of one answer, in the order of the seed's decision flow.

    Args:
        em, f1, rouge_l: the answer's best scores over its gold answers.
        faithfulness: local faithfulness; None (no token to check) triggers no faithfulness rule.
        empty: the prediction is empty or blank.
        gt_in_contexts: some gold answer occurs in some retrieved context; None (the contexts are
            unknown) triggers no retrieval-failure rule.
        n_tokens: the prediction's number of normalized tokens.
        thresholds: the decision flow's thresholds.
    """
    t = thresholds
    if em == 1.0 or f1 >= t.correct_f1:
        return [CORRECT]
    if empty:
        return [EMPTY_RESPONSE]
    categories = []
    retrieval_failure = gt_in_contexts is False
    if retrieval_failure:
        categories.append(RETRIEVAL_FAILURE)
    hallucination = faithfulness is not None and faithfulness < t.hallucination_faithfulness and f1 > 0
    if hallucination:
        categories.append(HALLUCINATION)
    if (faithfulness is not None and faithfulness < t.low_relevance_faithfulness
            and not retrieval_failure and not hallucination):
        categories.append(LOW_CONTEXT_RELEVANCE)
    incomplete = n_tokens < t.incomplete_max_tokens and f1 < t.incomplete_f1
    if incomplete:
        categories.append(INCOMPLETE_ANSWER)
    if rouge_l > t.verbose_rouge_l and em == 0 and f1 < t.verbose_f1:
        categories.append(VERBOSE_ANSWER)
    if f1 < t.wrong_f1 and em == 0 and not hallucination and not incomplete:
        categories.append(WRONG_ANSWER)
    return categories or [WRONG_ANSWER]


def check_badness_weights(weights: Mapping[str, float]) -> dict[str, float]:
    """The weights as floats; raises unless the keys are exactly ``f1``, ``faithfulness``, ``em``."""
    if set(weights) != set(BADNESS_TERMS):
        raise ValueError(f"badness_weights must have exactly the keys {list(BADNESS_TERMS)}, got {sorted(weights)}")
    return {key: float(weights[key]) for key in BADNESS_TERMS}


def badness(f1: float, faithfulness: float | None, em: float, weights: Mapping[str, float]) -> float:
    """Composite score ``w_f1*F1 + w_faith*faithfulness + w_em*EM``; lower is worse.

    A missing faithfulness (empty answer) counts as 0.

    Example:
        >>> badness(0.5, 1.0, 0.0, {"f1": 0.5, "faithfulness": 0.3, "em": 0.2})
        0.55
    """
    w = check_badness_weights(weights)
    return w["f1"] * f1 + w["faithfulness"] * (faithfulness or 0.0) + w["em"] * em


def worst(rows: list[Mapping[str, Any]], n: int, key: str = "badness") -> list[Mapping[str, Any]]:
    """The ``n`` rows with the lowest ``row[key]``, worst first; rows without the key are skipped.

    Ties keep the rows' order, so the selection is deterministic.
    """
    if n < 0:
        raise ValueError(f"n must be >= 0, got {n}")
    scored = [row for row in rows if row.get(key) is not None]
    return sorted(scored, key=lambda row: row[key])[:n]
