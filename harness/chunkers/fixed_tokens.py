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
        spans = []
        step = self.size - self.overlap
        for first in range(0, len(offsets), step):
            window = offsets[first:first + self.size]
            spans.append((window[0][0], window[-1][1]))
            if first + self.size >= len(offsets):
                break
        return make_chunks(document, spans)

    def fingerprint(self) -> dict[str, Any]:
        return {"chunker": "fixed_tokens", "size": self.size, "overlap": self.overlap,
                "tokenizer": model_fingerprint(self.tokenizer_name)}
