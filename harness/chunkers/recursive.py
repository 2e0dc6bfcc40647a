"""Recursive character splitting on a separator hierarchy (paragraphs, lines, sentences, words).

Written here rather than taken from langchain-text-splitters: that splitter works on strings and
recovers offsets by searching the text again, and it pulls in langchain-core; here every piece is
a (start, end) span of the original document, so offsets are exact by construction.
"""

from __future__ import annotations

from typing import Any

from harness.chunkers.base import Chunk, Chunker, check_size_and_overlap, make_chunks
from harness.data.records import Document

Span = tuple[int, int]


class RecursiveChunker(Chunker):
    """Chunks of at most ``size`` characters, split at the coarsest separator that works.

    Pieces separated by the first separator found in a span are packed greedily into chunks;
    a piece longer than ``size`` is split again with the next separators. Consecutive chunks
    share up to ``overlap`` characters of whole pieces. The empty separator splits anywhere.

    Example:
        >>> doc = Document(id="d", text="a b c d e f")
        >>> [c.text for c in RecursiveChunker(size=5, overlap=2, separators=[" "]).split(doc)]
        ['a b c', 'c d e', 'e f']
    """

    def __init__(self, size: int, overlap: int, separators: list[str]) -> None:
        check_size_and_overlap(size, overlap)
        if not separators:
            raise ValueError("separators must not be empty")
        self.size = size
        self.overlap = overlap
        self.separators = list(separators)

    def split(self, document: Document) -> list[Chunk]:
        spans = self._split(document.text, 0, len(document.text), self.separators)
        kept: list[Span] = []
        for start, end in (_strip(document.text, span) for span in spans):
            # Stripping can shrink a window onto its neighbour: keep only the larger of two nested spans.
            if end <= start or (kept and kept[-1][0] <= start and end <= kept[-1][1]):
                continue
            if kept and start <= kept[-1][0] and kept[-1][1] <= end:
                kept.pop()
            kept.append((start, end))
        return make_chunks(document, kept)

    def fingerprint(self) -> dict[str, Any]:
        return {"chunker": "recursive", "size": self.size, "overlap": self.overlap,
                "separators": self.separators}

    def _split(self, text: str, start: int, end: int, separators: list[str]) -> list[Span]:
        if end - start <= self.size:
            return [(start, end)]
        index = next((i for i, sep in enumerate(separators) if sep == "" or sep in text[start:end]), None)
        if index is None or separators[index] == "":
            return self._windows(start, end)
        pieces = _pieces(text, start, end, separators[index])
        rest = separators[index + 1:]
        spans: list[Span] = []
        pending: list[Span] = []
        for piece in pieces:
            if piece[1] - piece[0] <= self.size:
                pending.append(piece)
                continue
            spans += self._merge(pending)
            pending = []
            spans += self._split(text, piece[0], piece[1], rest) if rest else self._windows(*piece)
        return spans + self._merge(pending)

    def _merge(self, pieces: list[Span]) -> list[Span]:
        """Packs contiguous pieces into chunks of at most ``size``, carrying ``overlap`` forward."""
        chunks: list[Span] = []
        window: list[Span] = []
        for piece in pieces:
            if window and piece[1] - window[0][0] > self.size:
                chunks.append((window[0][0], window[-1][1]))
                while window and (window[-1][1] - window[0][0] > self.overlap
                                  or piece[1] - window[0][0] > self.size):
                    window.pop(0)
            window.append(piece)
        if window:
            chunks.append((window[0][0], window[-1][1]))
        return chunks

    def _windows(self, start: int, end: int) -> list[Span]:
        step = self.size - self.overlap
        return [(s, min(s + self.size, end)) for s in range(start, end, step)
                if s == start or s + self.overlap < end]


def _pieces(text: str, start: int, end: int, separator: str) -> list[Span]:
    """Splits [start, end) after each occurrence of ``separator`` (kept with the left piece).

    Pieces are trimmed of surrounding whitespace so that sizes measure visible text; the
    whitespace between pieces stays inside the chunk that spans them.
    """
    bounds = []
    cursor = start
    while True:
        found = text.find(separator, cursor, end)
        if found == -1:
            break
        bounds.append((cursor, found + len(separator)))
        cursor = found + len(separator)
    if cursor < end:
        bounds.append((cursor, end))
    pieces = [_strip(text, span) for span in bounds]
    return [(s, e) for s, e in pieces if e > s]


def _strip(text: str, span: Span) -> Span:
    start, end = span
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end
