"""One chunk per markdown section, titled with its header path."""

from __future__ import annotations

import re
from typing import Any

from harness.chunkers.base import Chunk, Chunker, make_chunks
from harness.data.records import Document

# CommonMark ATX header; an optional closing run of #s must follow a space ("# Using C#" keeps its #).
_HEADER = re.compile(r"^(#{1,6})[ \t]+(.+?)(?:[ \t]+#+)?[ \t]*$")
_FENCE = re.compile(r"^[ \t]*(`{3,}|~{3,})")


class MarkdownSectionsChunker(Chunker):
    """Splits at ATX headers up to ``max_level`` (lines inside code fences are not headers).

    A chunk runs from its header line to the next header of level <= ``max_level``; its title
    is the path of headers above it, e.g. ``"Authentication > Tokens > JWT"``. Text before the
    first header keeps the document's title.

    Example:
        >>> doc = Document(id="d", text="# A\\nintro\\n## B\\nbody\\n")
        >>> [(c.title, c.text) for c in MarkdownSectionsChunker(max_level=6).split(doc)]
        [('A', '# A\\nintro'), ('A > B', '## B\\nbody')]
    """

    def __init__(self, max_level: int = 6, title_separator: str = " > ") -> None:
        if not 1 <= max_level <= 6:
            raise ValueError(f"max_level must be between 1 and 6, got {max_level}")
        self.max_level = max_level
        self.title_separator = title_separator

    def split(self, document: Document) -> list[Chunk]:
        text = document.text
        starts: list[int] = [0]
        titles: list[str] = [document.title]
        path: list[tuple[int, str]] = []
        fence: str | None = None  # the marker of the open code fence, if any
        offset = 0
        for line in text.splitlines(keepends=True):
            fence_line = _FENCE.match(line)
            if fence_line:
                mark = fence_line.group(1)
                if fence is None:
                    fence = mark
                elif mark[0] == fence[0] and len(mark) >= len(fence):
                    fence = None
            match = None if fence_line or fence is not None else _HEADER.match(line.rstrip("\r\n"))
            if match and len(match.group(1)) <= self.max_level:
                level = len(match.group(1))
                path = [(lvl, name) for lvl, name in path if lvl < level] + [(level, match.group(2))]
                starts.append(offset)
                titles.append(self.title_separator.join(name for _, name in path))
            offset += len(line)
        ends = starts[1:] + [len(text)]
        spans = [_rstrip(text, s, e) for s, e in zip(starts, ends)]
        return make_chunks(document, spans, titles)

    def fingerprint(self) -> dict[str, Any]:
        return {"chunker": "markdown_sections", "max_level": self.max_level,
                "title_separator": self.title_separator}


def _rstrip(text: str, start: int, end: int) -> tuple[int, int]:
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end
