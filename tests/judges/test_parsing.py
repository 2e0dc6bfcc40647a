"""Strict reply parsing: what is accepted, and the reason given for what is not."""

from __future__ import annotations

import doctest

import pytest

import harness.judges.rubrics.parsing
from harness.judges.rubrics.parsing import (ParseError, parse_claims, parse_json_object, parse_number, parse_yes_no,
                                    read_label, read_score, read_text)


@pytest.mark.parametrize("text, expected", [("7", 7.0), (" 10\n", 10.0), ("0", 0.0), ("7.0", 7.0), ("+3", 3.0)])
def test_number_only(text, expected):
    assert parse_number(text, 0, 10) == expected


def test_a_fraction_is_read_only_where_the_scale_allows_one():
    """Seed 004's judge "returns a single integer" on 0-10: 7.5 is a format error (the repair asks
    again); a caller with a continuous scale says so."""
    for text in ("7.5", "0.5", "9.99"):
        with pytest.raises(ParseError, match=rf"score {text} is not an integer: the scale 0-10 takes whole numbers"):
            parse_number(text, 0, 10)
    assert parse_number("7.5", 0, 10, integer=False) == 7.5


@pytest.mark.parametrize("text, reason", [
    ("Score: 7", "expected a number only"),
    ("7/10", "expected a number only"),
    ("seven", "expected a number only"),
    ("", "expected a number only"),
    ("11", "score 11 is outside the scale 0-10"),
    ("-1", "score -1 is outside the scale 0-10"),
])
def test_number_rejections_say_why(text, reason):
    with pytest.raises(ParseError, match=reason):
        parse_number(text, 0, 10)


def test_json_object_plain_and_fenced():
    assert parse_json_object('{"grade": 8, "reasoning": "ok"}') == {"grade": 8, "reasoning": "ok"}
    assert parse_json_object('```json\n{"grade": 8}\n```') == {"grade": 8}
    assert parse_json_object('```\n{"grade": 8}\n```') == {"grade": 8}


@pytest.mark.parametrize("text, reason", [
    ('{"grade": 8', "not valid JSON"),
    ('Sure! {"grade": 8}', "not valid JSON"),
    ('[8]', "expected a JSON object, got list"),
    ('{"grade": 8} trailing', "not valid JSON"),
])
def test_json_rejections(text, reason):
    with pytest.raises(ParseError, match=reason):
        parse_json_object(text)


def test_json_fields_are_typed_and_in_range():
    reply = {"grade": 8, "reasoning": "fine", "verdict": "pass"}
    assert read_score(reply, "grade", 1, 10) == 8.0
    assert read_text(reply, "reasoning") == "fine"
    assert read_label(reply, "verdict", ["PASS", "PARTIAL", "FAIL"]) == "PASS"
    with pytest.raises(ParseError, match="no 'score' field"):
        read_score(reply, "score", 1, 10)
    with pytest.raises(ParseError, match="field 'grade' 0 is outside the scale 1-10"):
        read_score({"grade": 0}, "grade", 1, 10)
    assert read_score({"grade": 8.0}, "grade", 1, 10) == 8.0
    with pytest.raises(ParseError, match="field 'grade' 7.5 is not an integer: the scale 1-10 takes whole numbers"):
        read_score({"grade": 7.5}, "grade", 1, 10)
    assert read_score({"grade": 7.5}, "grade", 1, 10, integer=False) == 7.5
    with pytest.raises(ParseError, match="must be a number"):
        read_score({"grade": "8"}, "grade", 1, 10)
    with pytest.raises(ParseError, match="must be a number"):
        read_score({"grade": True}, "grade", 1, 10)
    with pytest.raises(ParseError, match="must be a string"):
        read_text({"reasoning": 3}, "reasoning")
    with pytest.raises(ParseError, match=r"must be one of \['PASS', 'PARTIAL', 'FAIL'\]"):
        read_label({"verdict": "MAYBE"}, "verdict", ["PASS", "PARTIAL", "FAIL"])


def test_yes_no():
    assert parse_yes_no("Yes") is True and parse_yes_no(" no. ") is False
    with pytest.raises(ParseError, match="expected yes or no"):
        parse_yes_no("Yes, the claim is supported.")


def test_claims_one_per_marked_line():
    text = "Here are the claims:\n- Tokens expire.\n* After 3600 seconds.\n2. Keys rotate.\n- Tokens expire."
    assert parse_claims(text) == ["Tokens expire.", "After 3600 seconds.", "Keys rotate."]
    with pytest.raises(ParseError, match="no claims found"):
        parse_claims("Tokens expire after an hour.")


def test_docstring_examples():
    assert doctest.testmod(harness.judges.rubrics.parsing).failed == 0
