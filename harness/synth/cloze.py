"""Cloze questions, no language model: a salient span of a passage's sentence becomes the gold
answer of a question made from that sentence (``conf/synth/cloze.yaml``).

Example: "The standard limit is 100 requests per minute per authenticated user." gives
"The standard limit is how many requests per minute per authenticated user?" with the gold answer
"100 requests per minute", the sentence as the expected answer and the span as its key fact.
"""

from __future__ import annotations

import random
from typing import Any

from harness.chunkers.base import Chunk
from harness.synth.records import Candidate, Tools, Written
from harness.synth.spans import SPAN_KINDS, Span, find_spans, sentences
from harness.synth.writer import Writer

# The forms a span takes, each with its question phrase in YAML (``wh``).
FORMS = ("unit", "percent", "hyphenated", "date", "name")


class ClozeWriter(Writer):
    """Turns one salient span per passage into a question: a seeded choice among the spans of the
    first kind in ``spans`` that the passage has.

    Args:
        spans: the span kinds asked about, in order of preference (``number_unit``, ``date``, ``name``).
        min_words: shortest sentence used, in words.
        max_words: longest sentence used.
        wh: the phrase that replaces the span, per form: ``unit`` (``{unit}`` is the number's unit),
            ``percent``, ``hyphenated`` (2048-bit), ``date``, ``name``.
        difficulty: the ``difficulty`` field of the lines, by question kind (``cloze``).
    """

    kind = "cloze"

    def __init__(self, spans: list[str], min_words: int, max_words: int, wh: dict[str, str],
                 difficulty: dict[str, str]) -> None:
        super().__init__(difficulty)
        unknown = sorted(set(spans) - set(SPAN_KINDS))
        if unknown or not spans:
            raise ValueError(f"synth.writer.spans must be a non-empty list of {list(SPAN_KINDS)}, got {list(spans)}")
        if not 1 <= min_words <= max_words:
            raise ValueError(f"synth.writer needs 1 <= min_words <= max_words, got {min_words}, {max_words}")
        missing = sorted(set(FORMS) - set(wh))
        if missing:
            raise ValueError(f"synth.writer.wh lacks the phrase for {missing}")
        self.spans, self.min_words, self.max_words = tuple(spans), min_words, max_words
        self.wh = dict(wh)
        if "cloze" not in self.difficulty:
            raise ValueError("synth.writer.difficulty must give the difficulty of 'cloze' questions")

    def templates(self) -> dict[str, Any]:
        return {"spans": list(self.spans), "wh": self.wh, "min_words": self.min_words, "max_words": self.max_words}

    def write(self, groups: list[tuple[Chunk, ...]], tools: Tools, seed: int) -> list[Written]:
        return [self._one(group[0], seed) for group in groups]

    def _one(self, passage: Chunk, seed: int) -> Written:
        # A chunk that does not start its document may start inside a sentence.
        cut = passage.start > 0 and not passage.text.startswith("#")
        choices = [(sentence, span) for sentence in sentences(passage.text, self.min_words, self.max_words, cut)
                   for span in find_spans(sentence, self.spans) if not sentence[span.end:].startswith("'s")]
        if not choices:
            return Written(None, "no salient span in a sentence of the passage")
        preferred = min(self.spans.index(span.kind) for _, span in choices)
        choices = [(sentence, span) for sentence, span in choices if self.spans.index(span.kind) == preferred]
        # Seeded by passage: the same passage gets the same question whatever order it is read in.
        sentence, span = random.Random(f"{seed}:{passage.id}").choice(choices)
        question = self.question(sentence, span)
        return Written(Candidate(question=question, answer=span.text, passages=(passage,), kind=self.kind,
                                 key_facts=(span.text,), expected_answer=sentence,
                                 detail={"span": span.kind, "sentence": sentence}))

    def question(self, sentence: str, span: Span) -> str:
        """``sentence`` with ``span`` replaced by its question phrase, ending in a question mark."""
        phrase = self.wh[_form(span)].format(unit=span.unit)
        before, after = sentence[:span.start], sentence[span.end:].rstrip(" .!?;:")
        if not before:
            phrase = phrase[:1].upper() + phrase[1:]
        return f"{before}{phrase}{after}?"


def _form(span: Span) -> str:
    if span.kind != "number_unit":
        return span.kind
    if span.unit == "%":
        return "percent"
    return "hyphenated" if span.text[len(span.text) - len(span.unit) - 1] == "-" else "unit"
