"""Numbers in answers: extraction, normalisation, rounding-aware agreement, factual accuracy."""

from __future__ import annotations

import pytest

from harness.metrics.matching import fuzzy_match
from harness.metrics.routes.numeric import agree, claim_numbers, extract_numbers
from harness.metrics.routes.scoring import NumberRules, completeness, factual_accuracy

RULES = NumberRules(relative_tolerance=0.0, max_relative_rounding=0.05, ignore_years=(1900, 2100))


@pytest.mark.parametrize("text, expected", [
    ("1,234", [(1234.0, "plain")]),
    ("$1.2M", [(1_200_000.0, "USD")]),
    ("RM 1.2 million", [(1_200_000.0, "MYR")]),
    ("RM1,200,000", [(1_200_000.0, "MYR")]),
    ("12%", [(12.0, "percent")]),
    ("+5.8 per cent", [(5.8, "percent")]),
    ("-$42,000 (-3.4%)", [(-42_000.0, "USD"), (-3.4, "percent")]),
    ("2.5k users", [(2500.0, "plain")]),
    ("3 billion USD", [(3e9, "USD")]),
    ("€40 and £7", [(40.0, "EUR"), (7.0, "GBP")]),
    ("release 2.5.0, Q2, 02:00 UTC", [(2.0, "plain"), (0.0, "plain")]),  # versions and Q2 are not numbers
    ("5 m of cable", [(5.0, "plain")]),                                   # a spaced one-letter scale is not a scale
])
def test_extraction(text, expected):
    assert [(n.value, n.kind) for n in extract_numbers(text)] == expected


def test_years_are_not_claims_unless_written_as_amounts():
    assert [n.value for n in claim_numbers("In June 2025 revenue was 2025 units, $2,025 and 2,025", (1900, 2100))] == [
        2025.0, 2025.0]
    assert len(claim_numbers("June 2025", None)) == 1


def one(text: str):
    (number,) = extract_numbers(text)
    return number


@pytest.mark.parametrize("answer, gold, expected", [
    ("$1,345,000", "$1,345,000", True),
    ("1,345,000", "$1,345,000", True),       # a plain number agrees with an amount
    ("$1.3M", "$1,345,000", True),           # rounded to the written precision (step 0.1M, 3.7% of the value)
    ("$1.35M", "$1,345,000", True),
    ("$1M", "$1,345,000", False),            # a rounding step of 37%: too coarse
    ("$1.4M", "$1,345,000", False),
    ("$1,346,000", "$1,345,000", False),     # exact figures must be equal (relative_tolerance 0)
    ("1,217,667", "1,217,666.67", True),     # the gold value rounded to whole dollars
    ("RM 1,345,000", "$1,345,000", False),   # another currency
    ("12%", "12.4%", True),
    ("12", "12%", False),                    # a percentage never agrees with a count
    ("5.82%", "+5.8%", True),
    ("$42,000", "-$42,000", True),           # "fell by $42,000": sign only compared when both are written
    ("+$42,000", "-$42,000", False),
    ("461", "461", True),
    ("460", "461", False),
])
def test_agreement(answer, gold, expected):
    assert agree(one(answer), one(gold), 0.0, 0.05) is expected


def test_relative_tolerance_widens_agreement():
    assert agree(one("$1,346,000"), one("$1,345,000"), 0.001, 0.05)
    assert not agree(one("$1,360,000"), one("$1,345,000"), 0.001, 0.05)


def test_factual_accuracy_correct_number_and_made_up_one():
    result = factual_accuracy("Revenue was $1.35M in June, vs $1.2M in May.", "$1,345,000", [], [], fuzzy_match, RULES)
    assert (result.claims, result.correct, result.contradicting) == (1, 1, 1)
    assert result.score == 0.5


def test_a_figure_found_in_the_evidence_is_not_made_up():
    evidence = ["| May 2025 | $1,271,000 |"]
    result = factual_accuracy("June: $1,345,000 vs $1,271,000 in May (+5.8%).", "$1,345,000", [], evidence,
                              fuzzy_match, RULES)
    # +5.8% is a percentage, a kind the gold answer does not state: not checked against it.
    assert (result.correct, result.contradicting, result.score) == (1, 0, 1.0)


def test_wrong_number_counts_against_accuracy():
    result = factual_accuracy("Headcount was 470 employees.", "461 employees", ["461 employees"], [],
                              fuzzy_match, RULES)
    assert (result.claims, result.correct, result.contradicting, result.score) == (1, 0, 1, 0.0)


def test_key_facts_without_numbers_are_claims_too():
    facts = ["100 requests per minute per authenticated user", "Retry-After header"]
    both = factual_accuracy("100 requests per minute; then wait as the Retry-After header says.",
                            "100 requests per minute", facts, [], fuzzy_match, RULES)
    # Claims: the number 100 (ground truth and first fact, counted once) and the text fact.
    assert (both.claims, both.correct, both.contradicting, both.score) == (2, 2, 0, 1.0)
    half = factual_accuracy("100 requests per minute.", "100 requests per minute", facts, [], fuzzy_match, RULES)
    assert (half.claims, half.correct, half.score) == (2, 1, 0.5)


def test_nothing_to_check_is_absent_not_zero():
    assert factual_accuracy("Could you clarify which month?", "Clarification needed", [], [], fuzzy_match,
                            RULES).score is None


def test_completeness_is_number_aware():
    facts = ["$1,345,000", "$1,217,667"]
    assert completeness("June: $1.35M, against an average of $1,217,667.", facts, fuzzy_match, RULES) == 1.0
    assert completeness("June: $1.35M.", facts, fuzzy_match, RULES) == 0.5
    assert completeness("anything", [], fuzzy_match, RULES) is None
