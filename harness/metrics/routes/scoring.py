"""Seed 001's route-aware scoring rules as pure functions (the numbers come from the route table).

Example (seed 001 section 7.2, v8.7 KPI weights):
    >>> weights = {"semantic_similarity": 0.15, "completeness": 0.25, "factual_accuracy": 0.35,
    ...            "presentation": 0.10, "executive_format": 0.15}
    >>> dims = {"semantic_similarity": 0.60, "completeness": 0.65, "factual_accuracy": 0.75,
    ...         "presentation": 0.90, "executive_format": 0.85}
    >>> round(weighted_quality(dims, weights), 4)
    0.7325
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from harness.metrics.matching import Matcher
from harness.metrics.routes.checks import TextCheck, passed_weight
from harness.metrics.routes.numeric import Number, agree, claim_numbers, extract_numbers, kinds_compatible


def executive_format(answer: str, checks: Sequence[TextCheck] | None) -> float:
    """Seed 001 section 2.1: the weights of the passed checks, capped at 1.0; 1.0 when the
    route has no executive-format checks ("N/A for non-KPI routes", no penalty)."""
    if checks is None:
        return 1.0
    return min(1.0, passed_weight(answer, checks))


def semantic_bonus(answer: str, checks: Sequence[TextCheck]) -> float:
    """Seed 001 section 2.2: the sum of the bonuses whose checks the answer passes."""
    return passed_weight(answer, checks)


def route_semantic_similarity(base: float, bonus: float, minimum: float | None,
                              floor: float | None) -> tuple[float, bool]:
    """Seed 001 section 2.2's rule: ``min(1, base + bonus)``, and when that is below the
    route's minimum, ``max(floor, similarity)``. Returns the score and whether it was below.

    Example (the seed's KPI answer: 0.39 plus the +0.25 of all three bonuses):
        >>> route_semantic_similarity(0.39, 0.25, minimum=0.50, floor=0.3)
        (0.64, False)
        >>> route_semantic_similarity(0.2, 0.0, minimum=0.50, floor=0.3)
        (0.3, True)
    """
    similarity = min(1.0, base + bonus)
    if minimum is None or similarity >= minimum:
        return round(similarity, 12), False
    if floor is None:
        raise ValueError("a minimum semantic similarity needs a floor (below_minimum_floor)")
    return round(max(floor, similarity), 12), True


def presentation(answer: str, checks: Sequence[TextCheck]) -> float:
    """Share of the presentation checks' weight that the answer passes; 0 for a blank answer
    (negated checks such as "no repeated words" would otherwise pass on nothing)."""
    if not answer.strip():
        return 0.0
    total = sum(check.weight for check in checks)
    if total <= 0:
        raise ValueError("presentation checks need a positive total weight")
    return passed_weight(answer, checks) / total


def weighted_quality(dimensions: Mapping[str, float | None], weights: Mapping[str, float]) -> float | None:
    """The weighted mean of the dimensions the weights name.

    A dimension that is absent (None or missing: no key facts for completeness, nothing
    checkable for factual accuracy) leaves the mean, and the others' weights are renormalised;
    with every weighted dimension present (as in the seed) this is the plain weighted sum.
    None when no weighted dimension is present.
    """
    present = {name: w for name, w in weights.items() if dimensions.get(name) is not None}
    total = sum(present.values())
    if not present or total <= 0:
        return None
    return sum(w * float(dimensions[name]) for name, w in present.items()) / total


def two_tier(routing_correct: bool | None, quality: float | None, routing_weight: float, quality_weight: float,
             wrong_route: float | None) -> float | None:
    """Seed 001's two-tier score: ``routing_weight * correct + quality_weight * quality``.

    ``wrong_route`` set: a mismatched route scores exactly that (seed 001: "wrong route = 0.00
    score"). None when the route was not checked or there is no answer (no quality) to weigh,
    so a run's mean two-tier score covers the answered questions only, right or wrong route.

    Example:
        >>> two_tier(True, 0.8, 0.30, 0.70, wrong_route=0.0)
        0.86
        >>> two_tier(False, 0.8, 0.30, 0.70, wrong_route=0.0), two_tier(False, 0.8, 0.30, 0.70, wrong_route=None)
        (0.0, 0.56)
    """
    if routing_correct is None or quality is None:
        return None
    if not routing_correct and wrong_route is not None:
        return float(wrong_route)
    return round(routing_weight * float(routing_correct) + quality_weight * quality, 12)


def matches_any(answer: str, patterns: Iterable[re.Pattern]) -> bool:
    return any(pattern.search(answer) for pattern in patterns)


def forbidden_hits(answer: str, keywords: Iterable[str]) -> list[str]:
    """Forbidden keywords present in the answer (case-insensitive substrings, as seed 001's terms)."""
    lowered = answer.lower()
    return [keyword for keyword in keywords if keyword.lower() in lowered]


@dataclass(frozen=True)
class NumberRules:
    """How numbers are compared (see :mod:`harness.metrics.routes.numeric`)."""

    relative_tolerance: float
    max_relative_rounding: float
    ignore_years: tuple[int, int] | None

    def __post_init__(self) -> None:
        if self.relative_tolerance < 0 or self.max_relative_rounding < 0:
            raise ValueError("numbers: relative_tolerance and max_relative_rounding must be >= 0")

    def agree(self, answer: Number, gold: Number) -> bool:
        return agree(answer, gold, self.relative_tolerance, self.max_relative_rounding)

    def found(self, gold: Number, candidates: Sequence[Number]) -> bool:
        return any(self.agree(candidate, gold) for candidate in candidates)


def fact_found(fact: str, answer: str, answer_numbers: Sequence[Number], match: Matcher, rules: NumberRules) -> bool:
    """A key fact is in the answer: the text matcher finds it, or the fact states numbers and
    the answer states every one of them ("$1.35M" for the fact "$1,345,000")."""
    if match(fact, answer):
        return True
    numbers = claim_numbers(fact, rules.ignore_years)
    return bool(numbers) and all(rules.found(number, answer_numbers) for number in numbers)


def completeness(answer: str, key_facts: Sequence[str], match: Matcher, rules: NumberRules) -> float | None:
    """Key-fact coverage of the answer; None without key facts."""
    if not key_facts:
        return None
    numbers = claim_numbers(answer, rules.ignore_years)
    return sum(fact_found(f, answer, numbers, match, rules) for f in key_facts) / len(key_facts)


@dataclass(frozen=True)
class FactualAccuracy:
    score: float | None
    claims: int  # gold numbers plus key facts without numbers
    correct: int
    contradicting: int  # the answer's numbers that the evidence does not support


def factual_accuracy(answer: str, ground_truth: str, key_facts: Sequence[str], evidence: Sequence[str],
                     match: Matcher, rules: NumberRules) -> FactualAccuracy:
    """Numbers and key facts correct against the ground truth; a wrong number counts against it.

    The claims to check are the distinct numbers of the ground truth and the key facts, plus the
    key facts that hold no number. A claim is correct when the answer states it. A number in
    the answer contradicts when it has the kind of a gold number (a percentage, a currency...)
    but agrees with no number of the ground truth, key facts or ``evidence`` (the question, the
    expected answer and, where the route profile's ``contexts_support`` says so, the retrieved
    passages): a figure the answer made up or took from the wrong row.
    Score = correct / (claims + contradicting); None when there is nothing to check.

    Example:
        >>> rules = NumberRules(0.005, 0.05, (1900, 2100))
        >>> from harness.metrics.matching import fuzzy_match
        >>> factual_accuracy("June revenue: $1.35M, vs $1.20M in May.", "$1,345,000", [], [], fuzzy_match, rules).score
        0.5
        >>> factual_accuracy("June revenue: $1.35M, vs $1.20M in May.", "$1,345,000", [], ["| April | $1,196,000 |"],
        ...                  fuzzy_match, rules).score
        1.0
    """
    answer_numbers = claim_numbers(answer, rules.ignore_years)
    gold: list[Number] = []
    for number in claim_numbers(ground_truth, rules.ignore_years) + [
            n for fact in key_facts for n in claim_numbers(fact, rules.ignore_years)]:
        if not rules.found(number, gold):
            gold.append(number)
    text_facts = [fact for fact in key_facts if not claim_numbers(fact, rules.ignore_years)]
    correct = sum(rules.found(number, answer_numbers) for number in gold)
    correct += sum(match(fact, answer) for fact in text_facts)
    supported = gold + [n for text in evidence for n in extract_numbers(text)]
    contradicting = sum(1 for number in answer_numbers
                        if any(kinds_compatible(number, g) for g in gold) and not rules.found(number, supported))
    claims = len(gold) + len(text_facts)
    denominator = claims + contradicting
    score = correct / denominator if denominator else None
    return FactualAccuracy(score=score, claims=claims, correct=correct, contradicting=contradicting)
