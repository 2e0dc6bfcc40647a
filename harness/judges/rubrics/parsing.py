"""Strict readers of judge replies. Anything unexpected raises :class:`ParseError` with the reason,
which the rubric sends back to the judge in its one repair attempt."""

from __future__ import annotations

import json
import math
import re
from typing import Any

_NUMBER = re.compile(r"[+-]?\d+(?:\.\d+)?")
# A reply wrapped in one Markdown code fence (```json ... ```), as chat models often send JSON.
_FENCE = re.compile(r"^```[A-Za-z]*\s*\n?(.*?)\n?```$", re.DOTALL)
_CLAIM_MARKER = re.compile(r"^\s*(?:[-*\u2022]|\d+[.)])\s+(.*\S)\s*$")


class ParseError(ValueError):
    """The reply does not follow the rubric's output format."""


def parse_number(text: str, low: float, high: float, integer: bool = True) -> float:
    """The reply must be a single number within ``[low, high]``; on an integer scale (every score
    rubric's: seed 004's judge "returns a single integer", seeds 000 and 002 grade 1-10 in whole
    points) a whole number, ``7`` or ``7.0``, while ``7.5`` is refused so the repair asks again.

    >>> parse_number(" 8\\n", 0, 10)
    8.0
    >>> parse_number("7.5", 0, 10, integer=False)
    7.5
    """
    stripped = text.strip()
    if not _NUMBER.fullmatch(stripped):
        raise ParseError(f"expected a number only, got {_quote(text)}")
    return check_range(float(stripped), low, high, "score", integer)


def check_range(value: float, low: float, high: float, name: str, integer: bool = True) -> float:
    """``value`` if it lies on the scale ``low``-``high`` (in whole numbers when ``integer``)."""
    if not math.isfinite(value) or not low <= value <= high:
        raise ParseError(f"{name} {value:g} is outside the scale {low:g}-{high:g}")
    if integer and not value.is_integer():
        raise ParseError(f"{name} {value:g} is not an integer: the scale {low:g}-{high:g} takes whole numbers only")
    return value


def parse_json_object(text: str) -> dict[str, Any]:
    """The reply must be one JSON object (a single surrounding Markdown code fence is tolerated)."""
    stripped = text.strip()
    fenced = _FENCE.match(stripped)
    if fenced:
        stripped = fenced.group(1).strip()
    try:
        value = json.loads(stripped)
    except json.JSONDecodeError as err:
        raise ParseError(f"not valid JSON ({err.msg} at character {err.pos}): {_quote(text)}") from None
    if not isinstance(value, dict):
        raise ParseError(f"expected a JSON object, got {type(value).__name__}: {_quote(text)}")
    return value


def read_score(obj: dict[str, Any], field: str, low: float, high: float, integer: bool = True) -> float:
    """A numeric field of a JSON reply, on the scale (booleans and numeric strings are rejected;
    on an integer scale ``8`` and ``8.0`` are read, ``7.5`` is refused).

    >>> read_score({"grade": 8}, "grade", 1, 10)
    8.0
    """
    if field not in obj:
        raise ParseError(f"the JSON reply has no {field!r} field (fields: {sorted(obj)})")
    value = obj[field]
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ParseError(f"field {field!r} must be a number, got {json.dumps(value)}")
    return check_range(float(value), low, high, f"field {field!r}", integer)


def read_text(obj: dict[str, Any], field: str) -> str:
    if field not in obj:
        raise ParseError(f"the JSON reply has no {field!r} field (fields: {sorted(obj)})")
    if not isinstance(obj[field], str):
        raise ParseError(f"field {field!r} must be a string, got {json.dumps(obj[field])}")
    return obj[field]


def read_label(obj: dict[str, Any], field: str, labels: list[str]) -> str:
    """A label field such as ``"verdict": "PASS"`` (case-insensitive), one of ``labels``."""
    value = read_text(obj, field).strip().upper()
    allowed = {label.upper(): label for label in labels}
    if value not in allowed:
        raise ParseError(f"field {field!r} must be one of {labels}, got {json.dumps(obj[field])}")
    return allowed[value]


def parse_yes_no(text: str) -> bool:
    """The reply must be ``yes`` or ``no`` (any case, an optional final full stop).

    >>> parse_yes_no("Yes."), parse_yes_no("no")
    (True, False)
    """
    word = text.strip().rstrip(".").strip().lower()
    if word not in ("yes", "no"):
        raise ParseError(f"expected yes or no, got {_quote(text)}")
    return word == "yes"


def parse_claims(text: str) -> list[str]:
    """One claim per line, each starting with ``-``, ``*``, a bullet or ``1.``; other lines are ignored.

    >>> parse_claims("- Tokens expire.\\n- After 3600 s.")
    ['Tokens expire.', 'After 3600 s.']
    """
    claims = []
    for line in text.splitlines():
        found = _CLAIM_MARKER.match(line)
        if found and found.group(1) not in claims:
            claims.append(found.group(1))
    if not claims:
        raise ParseError(f"no claims found: expected one claim per line starting with '- ', got {_quote(text)}")
    return claims


def _quote(text: str, limit: int = 200) -> str:
    text = text.strip()
    return json.dumps(text if len(text) <= limit else text[:limit] + "...")
