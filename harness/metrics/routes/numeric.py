"""Numbers in answers and gold answers: extraction, normalisation and rounding-aware comparison.

Seed 001 checks "numerical claims against the ground truth". That needs "1,234", "$1.2M",
"RM 1.2 million", "12%" and "+5.8%" read as values with a kind (percent, a currency, or a plain
number) and the precision they were written with. Written here rather than taken from a library:
quantulum3, the maintained quantity extractor, loads a pickled scikit-learn classifier that fails
with the scikit-learn this project installs, and knows neither "RM" nor written precision; the
grammar needed is one regular expression.

Two numbers agree when they have the same kind and differ by at most ``relative_tolerance`` of
the gold value, or when one is the other rounded to the precision it was written with ("$1.3M"
for 1,345,000) and that rounding step is at most ``max_relative_rounding`` of the value (so
"$1M" does not pass for 1,345,000). A number of one currency never agrees with another currency;
a plain number agrees with a currency amount ("1,345,000" with "$1,345,000"). Signs count only
when both numbers are written with one.

Example:
    >>> [n.value for n in claim_numbers("Revenue was $1.2M (+12%) in June 2025", ignore_years=(1900, 2100))]
    [1200000.0, 12.0]
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# Currency markers (prefix or suffix) -> ISO code.
CURRENCIES = {"$": "USD", "us$": "USD", "usd": "USD", "rm": "MYR", "myr": "MYR", "€": "EUR", "eur": "EUR",
              "£": "GBP", "gbp": "GBP"}
SCALES = {"k": 1e3, "thousand": 1e3, "m": 1e6, "mn": 1e6, "million": 1e6, "b": 1e9, "bn": 1e9, "billion": 1e9}
PERCENT = "percent"

_NUMBER = re.compile(
    r"(?<![\w.])"
    r"(?P<lead_sign>[+\-\u2212])?"
    r"(?:(?P<prefix>US\$|\$|€|£|RM|USD|MYR|EUR|GBP)\s?)?"
    r"(?P<sign>[+\-\u2212])?"
    r"(?P<digits>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)"
    r"(?!\.\d|,\d{3}|\d)"
    # A one-letter scale only right after the digits ("1.2M"; "5 m" is more likely metres).
    r"(?:(?:\s?(?P<word_scale>thousand|million|billion|bn|mn)|(?P<letter_scale>[kKmMbB]))(?!\w))?"
    r"(?:\s?(?P<percent>%|percent\b|per cent\b))?"
    r"(?:\s?(?P<suffix>USD|MYR|EUR|GBP)\b)?",
)


@dataclass(frozen=True)
class Number:
    """A number as written: its value, kind (``percent``, an ISO currency code or ``plain``),
    the precision step it was written with (1 for "1,234", 0.1e6 for "1.2M") and its text."""

    value: float
    kind: str
    step: float
    text: str
    bare_integer: bool = False  # no separators, decimals, scale, unit: could be a year
    signed: bool = False  # written with an explicit + or -


def extract_numbers(text: str) -> list[Number]:
    """Every number in ``text``, in order.

    Example:
        >>> [(n.value, n.kind) for n in extract_numbers("RM 1,234 and 2.5 million USD, 12 percent")]
        [(1234.0, 'MYR'), (2500000.0, 'USD'), (12.0, 'percent')]
    """
    numbers = []
    for match in _NUMBER.finditer(text):
        digits = match["digits"]
        decimals = len(digits.split(".")[1]) if "." in digits else 0
        scale_word = match["word_scale"] or match["letter_scale"]
        scale = SCALES[scale_word.lower()] if scale_word else 1.0
        value = float(digits.replace(",", "")) * scale
        sign = match["sign"] or match["lead_sign"]
        if sign in ("-", "\u2212"):
            value = -value
        currency = match["prefix"] or match["suffix"]
        if match["percent"]:
            kind = PERCENT
        elif currency:
            kind = CURRENCIES[currency.lower()]
        else:
            kind = "plain"
        bare = not (match["prefix"] or match["suffix"] or match["percent"] or scale_word or "," in digits
                    or "." in digits or sign)
        numbers.append(Number(value=value, kind=kind, step=scale * 10.0 ** -decimals,
                              text=match.group(0).strip(), bare_integer=bare, signed=sign is not None))
    return numbers


def claim_numbers(text: str, ignore_years: tuple[int, int] | None) -> list[Number]:
    """The numbers of ``text`` that state a quantity: bare integers within ``ignore_years``
    (inclusive) are dates such as "June 2025" and left out."""
    numbers = extract_numbers(text)
    if ignore_years is None:
        return numbers
    low, high = ignore_years
    return [n for n in numbers if not (n.bare_integer and low <= n.value <= high)]


def kinds_compatible(a: Number, b: Number) -> bool:
    if (a.kind == PERCENT) != (b.kind == PERCENT):
        return False
    return a.kind == b.kind or "plain" in (a.kind, b.kind)


def agree(answer: Number, gold: Number, relative_tolerance: float, max_relative_rounding: float) -> bool:
    """Whether two numbers state the same quantity (see the module docstring).

    Example:
        >>> gold = extract_numbers("$1,345,000")[0]
        >>> [agree(extract_numbers(t)[0], gold, 0.005, 0.05) for t in ("$1.3M", "$1M", "$1.5M", "RM 1,345,000")]
        [True, False, False, False]
    """
    if not kinds_compatible(answer, gold):
        return False
    # Prose says "fell by $42,000" for -$42,000: signs are compared only when both are written.
    if answer.signed and gold.signed:
        difference = abs(answer.value - gold.value)
    else:
        difference = abs(abs(answer.value) - abs(gold.value))
    magnitude = abs(gold.value)
    if difference <= relative_tolerance * magnitude or difference == 0:
        return True
    half_step = max(answer.step, gold.step) / 2
    # A tiny slack: 1.35M - 1.345M is 5000.000000000001 in floating point.
    return difference <= half_step * (1 + 1e-9) and half_step <= max_relative_rounding * magnitude
