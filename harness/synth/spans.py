"""Sentences of a passage and the salient spans in them: a number with its unit, a date, a
capitalised name. The patterns are the algorithm; what is asked about them lives in YAML
(``conf/synth/cloze.yaml``).

Example:
    >>> [(s.kind, s.text) for s in find_spans("The pool holds 100 connections since March 2024.")]
    [('number_unit', '100 connections'), ('date', 'March 2024')]
"""

from __future__ import annotations

import re
from dataclasses import dataclass

SPAN_KINDS = ("number_unit", "date", "name")
_MONTHS = ("January|February|March|April|May|June|July|August|September|October|November|December|"
           "Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec")
_DATE = re.compile(
    rf"\b(?:\d{{1,2}} (?:{_MONTHS})\.? \d{{4}}|(?:{_MONTHS})\.? (?:\d{{1,2}}, )?\d{{4}}|\d{{4}}-\d{{2}}-\d{{2}}"
    rf"|(?:in|In|since|Since|until|by|from|From|before|after) (?P<year>(?:1[89]|20)\d{{2}}))\b")
# A number (thousands separators, decimals, a sign) and the unit after it: %, a word (its "per X"
# too), or a hyphenated unit (2048-bit).
_NUMBER_UNIT = re.compile(
    r"(?<![\w.,/-])[-+]?\d[\d,]*(?:\.\d+)?(?:%|-[A-Za-z]+\b|\s(?:(?:business|calendar|working|consecutive) )?[A-Za-zµμ][\w/µμ²³-]*(?: per [a-z]+)?)")
# One to four capitalised words (CloudFlow, PgBouncer, New York, TNF-alpha, RS256), possibly joined by "of".
_NAME = re.compile(r"\b[A-Z][\w-]*(?:[A-Z\d][\w-]*)?(?:\s(?:of\s)?[A-Z][\w-]+){0,3}\b")
# Words after a number that are not its unit ("10 of them", "3 and 4").
_NOT_UNITS = frozenset("a an and are as at be by for from has have in is it of on or than that the their "
                       "then these this those to was were which with most more less fewer other such".split())
# Capitalised words that name nothing (sentence openers that may follow a colon, pronouns, months).
_NOT_NAMES = frozenset(("The", "This", "That", "These", "Those", "A", "An", "If", "When", "For", "In", "On", "It",
                        "Its", "Each", "Every", "All", "Some", "Any", "No", "Not", "We", "You", "They", "I", "To",
                        "And", "Or", "But", "Use", "See", "Note", *_MONTHS.split("|")))
_MARKUP = [(re.compile(r"!?\[([^\]]*)\]\([^)]*\)"), r"\1"), (re.compile(r"(\*\*|__|`)"), ""),
           (re.compile(r"(?<!\w)\*(?!\s)|(?<!\s)\*(?!\w)"), "")]
_LIST_ITEM = re.compile(r"^(?:[-*+]|\d+\.)\s+")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(])")


@dataclass(frozen=True)
class Span:
    """A salient span of a sentence: ``sentence[start:end] == text``; ``unit`` for a number's unit."""

    kind: str
    text: str
    start: int
    end: int
    unit: str = ""


def plain(text: str) -> str:
    """Markdown inline markup removed: links keep their text, emphasis and code marks go."""
    for pattern, replacement in _MARKUP:
        text = pattern.sub(replacement, text)
    return text


def sentences(passage: str, min_words: int, max_words: int, cut: bool = False) -> list[str]:
    """The prose sentences of a passage, markup removed, between ``min_words`` and ``max_words``
    words, each starting with a capital or a digit and ending in ``.``, ``!`` or ``?``; headings,
    table rows, list markers and code fences are not prose. ``cut``: the passage may begin
    inside a sentence (a chunk that does not start its document), so its first one is left out."""
    found = []
    for number, block in enumerate(re.split(r"\n\s*\n", passage)):
        lines = [line.strip() for line in block.splitlines()]
        if any(line.startswith(("```", "|")) for line in lines):
            continue
        items: list[str] = []  # a list item starts its own run of prose; other lines continue the last one
        for line in lines:
            if line and not line.startswith("#"):
                item = _LIST_ITEM.match(line)
                if item or not items:
                    items.append(line[item.end():] if item else line)
                else:
                    items[-1] += " " + line
        parts = [part for item in items for part in _SENTENCE_END.split(plain(item))]
        for sentence in parts[1:] if cut and number == 0 else parts:
            sentence = sentence.strip()
            if min_words <= len(sentence.split()) <= max_words and sentence[-1:] in ".!?" \
                    and (sentence[0].isupper() or sentence[0].isdigit()):
                found.append(sentence)
    return found


def find_spans(sentence: str, kinds: tuple[str, ...] | list[str] = SPAN_KINDS) -> list[Span]:
    """The salient spans of ``sentence``, of the given kinds, in order of position; a date is never
    also read as a number or a name, nor a number as a name."""
    spans: list[Span] = []
    taken: list[tuple[int, int]] = []

    def free(start: int, end: int) -> bool:
        return all(end <= a or start >= b for a, b in taken)

    if "date" in kinds:
        for match in _DATE.finditer(sentence):
            group = "year" if match.group("year") else 0
            spans.append(Span("date", match.group(group), match.start(group), match.end(group)))
            taken.append(match.span(group))
    for match in _NUMBER_UNIT.finditer(sentence):
        text = match.group().rstrip(".,;:")
        unit = re.sub(r"^[-+]?\d[\d,]*(?:\.\d+)?[\s-]?", "", text)
        if unit.split(" ")[0].lower() in _NOT_UNITS or not free(match.start(), match.start() + len(text)):
            continue
        taken.append((match.start(), match.start() + len(text)))
        if "number_unit" in kinds:
            spans.append(Span("number_unit", text, match.start(), match.start() + len(text), unit))
    if "name" in kinds:
        for match in _NAME.finditer(sentence):
            words = match.group().split()
            while words and words[0] in _NOT_NAMES:
                words.pop(0)
            if not words or match.start() == 0 and len(words) == len(match.group().split()) and len(words) == 1 \
                    and not _looks_like_a_name(words[0]):
                continue
            text = " ".join(words)
            start = match.end() - len(text)
            if free(start, match.end()) and (start > 0 or _looks_like_a_name(words[0])):
                spans.append(Span("name", text, start, match.end()))
    return sorted(spans, key=lambda span: span.start)


def _looks_like_a_name(word: str) -> bool:
    """A capitalised word at a sentence's start counts as a name only when it could not be an
    ordinary word: an acronym, a digit or a capital inside it (RS256, PgBouncer)."""
    return any(ch.isdigit() for ch in word) or any(ch.isupper() for ch in word[1:])
