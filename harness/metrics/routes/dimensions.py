"""Seed 001's quality dimensions of one answer, scored with the profile of the route it took.

``answer_dimensions`` returns the dimensions (None: absent, so it leaves the weighted mean) and
the per-question details logged beside them (``semantic_base``, ``numbers_contradicting``...).
The numbers (weights, minimums, bonuses, checks) all come from the route table.

Two rules that are route-table settings, not code:

* ``contexts_support`` (per profile): whether figures found in the retrieved passages count as
  supported. Off for KPI routes: their context is the whole data table, so any other month's
  figure would be "supported"; there only the question, ground truth, key facts and expected
  answer vouch for a figure, and a wrong one counts against factual accuracy.
* ``behaviour.not_applicable_when_detected``: dimensions that do not apply to an answer that
  rightly asks back (clarification expected) or declines (out of scope), such as the executive
  format of a KPI report.
"""

from __future__ import annotations

from collections.abc import Sequence

from harness.data.records import Question
from harness.metrics.matching import Matcher
from harness.metrics.routes import scoring
from harness.metrics.routes.table import RouteProfile, RouteTable

Details = dict[str, float]


def expects_behaviour(question: Question) -> bool:
    """Whether the right answer asks back or declines rather than answers."""
    criteria = question.answer_criteria
    return criteria.clarification_expected or criteria.out_of_scope


def reference(question: Question) -> str | None:
    """What the answer should say: the expected answer, else the ground truth, else a gold answer."""
    return question.expected_answer or question.ground_truth or (question.answers[0] if question.answers else None)


def answer_dimensions(question: Question, answer: str, contexts: Sequence[str], profile: RouteProfile,
                      table: RouteTable, base_similarity: float | None, match: Matcher,
                      rules: scoring.NumberRules) -> tuple[dict[str, float | None], Details]:
    """The dimensions of ``answer`` on a route scored with ``profile``, and their details.

    Args:
        base_similarity: cosine of the answer and :func:`reference` (None: no semantic dimension;
            unused for questions that expect a behaviour).
        contexts: the passages the answer was generated from.
    """
    details: Details = {}
    dims: dict[str, float | None] = {}
    detected = False
    if expects_behaviour(question):
        behaviour = table.behaviour
        asks_back = question.answer_criteria.clarification_expected
        patterns = behaviour.clarification if asks_back else behaviour.out_of_scope
        detected = scoring.matches_any(answer, patterns)
        details["behaviour_detected"] = float(detected)
        dims["semantic_similarity"] = behaviour.detected if detected else behaviour.missed
    elif base_similarity is not None:
        bonus = scoring.semantic_bonus(answer, profile.semantic_bonuses)
        minimum = profile.min_semantic_similarity
        if profile.minimum_from_question and question.answer_criteria.min_semantic_similarity is not None:
            minimum = question.answer_criteria.min_semantic_similarity
        dims["semantic_similarity"], below = scoring.route_semantic_similarity(
            base_similarity, bonus, minimum, profile.below_minimum_floor)
        details.update(semantic_base=base_similarity, semantic_bonus=bonus, semantic_below_minimum=float(below))
    dims["completeness"] = scoring.completeness(answer, question.key_facts, match, rules)
    dims["factual_accuracy"] = factual_accuracy(question, answer, contexts, profile, table, match, rules, details)
    dims["presentation"] = scoring.presentation(answer, table.presentation)
    if "executive_format" in profile.weights:
        dims["executive_format"] = scoring.executive_format(answer, profile.executive_format)
    if detected:
        for name in table.behaviour.not_applicable_when_detected:
            dims.pop(name, None)
    return dims, details


def factual_accuracy(question: Question, answer: str, contexts: Sequence[str], profile: RouteProfile,
                     table: RouteTable, match: Matcher, rules: scoring.NumberRules, details: Details) -> float | None:
    """Factual accuracy of ``answer`` (``table.forbidden_keyword_accuracy`` on a forbidden keyword);
    adds ``hallucination`` and the claim counts to ``details``."""
    criteria = question.answer_criteria
    hits = scoring.forbidden_hits(answer, criteria.forbidden_keywords)
    if criteria.forbidden_keywords:
        details["hallucination"] = float(bool(hits))
    if hits:
        return table.forbidden_keyword_accuracy
    ground_truth = question.ground_truth or (question.answers[0] if question.answers else "")
    evidence = [question.text, question.expected_answer or "", *question.answers]
    if profile.contexts_support:
        evidence += list(contexts)
    result = scoring.factual_accuracy(answer, ground_truth, question.key_facts, evidence, match, rules)
    if result.score is not None:
        details.update(claims_checked=float(result.claims), claims_correct=float(result.correct),
                       numbers_contradicting=float(result.contradicting))
    return result.score
