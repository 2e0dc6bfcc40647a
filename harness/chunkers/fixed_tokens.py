"""Fixed-size windows counted in the encoder tokenizer's tokens."""

from __future__ import annotations

from functools import cached_property
from typing import Any

from harness.chunkers.base import Chunk, Chunker, check_size_and_overlap, make_chunks
from harness.data.records import Document
from harness.models import load_tokenizer, model_fingerprint


class FixedTokensChunker(Chunker):
    """Windows of ``size`` tokens, consecutive windows sharing ``overlap`` tokens.

    Offsets come from the fast tokenizer's offset mapping, so a chunk's text is the exact
    original span (case and whitespace kept), even for an uncased tokenizer.

    Args:
        tokenizer: Hugging Face id or local path of the tokenizer (the encoder's by default).
        size: tokens per chunk.
        overlap: tokens shared by consecutive chunks.
    """

    def __init__(self, tokenizer: str, size: int, overlap: int) -> None:
        check_size_and_overlap(size, overlap)
        self.tokenizer_name = tokenizer
        self.size = size
        self.overlap = overlap

    @cached_property
    def _tokenizer(self):
        return load_tokenizer(self.tokenizer_name)

    def split(self, document: Document) -> list[Chunk]:
        encoding = self._tokenizer(document.text, add_special_tokens=False, return_offsets_mapping=True,
                                   verbose=False)
        offsets = encoding["offset_mapping"]
        if not offsets:
            return make_chunks(document, [(0, len(document.text))])
        word_ids = encoding.word_ids()
        starts_word = [i == 0 or word_ids[i] is None or word_ids[i] != word_ids[i - 1]
                       for i in range(len(offsets))]
        spans = [(offsets[first][0], offsets[last - 1][1]) for first, last in self._windows(starts_word)]
        return make_chunks(document, spans)

    def _windows(self, starts_word: list[bool]) -> list[tuple[int, int]]:
        """[first, last) token windows of at most ``size`` tokens.

        Windows end before, and start at, the first sub-word piece of a word, so that a chunk's text
        re-tokenizes to the same pieces (a window starting at ``##ation`` would not). A word longer
        than ``size`` tokens is cut where it must be.
        """
        count = len(starts_word)
        windows = []
        first = 0
        while True:
            last = min(first + self.size, count)
            if last < count:
                cut = last
                while cut > first and not starts_word[cut]:
                    cut -= 1
                last = cut if cut > first else last
            windows.append((first, last))
            if last >= count:
                return windows
            following = max(last - self.overlap, first + 1)
            while following < last and not starts_word[following]:
                following += 1
            first = following

    def fingerprint(self) -> dict[str, Any]:
        return {"chunker": "fixed_tokens", "size": self.size, "overlap": self.overlap,
                "tokenizer": model_fingerprint(self.tokenizer_name)}
