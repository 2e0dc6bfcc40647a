"""Line-by-line readers that turn malformed input into errors naming file, line and field."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

from harness.data.records import DatasetError

T = TypeVar("T")

# How many problems one error message lists before it summarises the rest.
MAX_REPORTED_PROBLEMS = 20


class ProblemList:
    """Collects every problem in a file so the user can fix them in one pass."""

    def __init__(self) -> None:
        self.problems: list[str] = []

    def add(self, path: Path, line: int | None, message: str) -> None:
        where = f"{path}:{line}" if line is not None else str(path)
        self.problems.append(f"{where}: {message}")

    def raise_if_any(self, what: str) -> None:
        if not self.problems:
            return
        shown = self.problems[:MAX_REPORTED_PROBLEMS]
        more = len(self.problems) - len(shown)
        tail = f"\n  ... and {more} more" if more else ""
        raise DatasetError(f"invalid {what} ({len(self.problems)} problem(s)):\n  " + "\n  ".join(shown) + tail)


def require_file(path: Path, what: str) -> Path:
    if not path.is_file():
        raise DatasetError(f"{what} not found: {path}")
    return path


def iter_jsonl(path: Path, problems: ProblemList) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yields (line number, object) for every non-blank line; bad lines become problems."""
    with path.open("rb") as handle:  # decoded line by line, so a bad byte is reported with its line
        for number, data in enumerate(handle, start=1):
            try:
                raw = data.decode("utf-8")
            except UnicodeDecodeError as err:
                problems.add(path, number, f"not valid UTF-8 (byte 0x{data[err.start]:02x} at column {err.start + 1})")
                continue
            if not raw.strip():
                continue
            try:
                record = json.loads(raw)
            except json.JSONDecodeError as err:
                # json's "Unterminated string starting at" already ends in "at"
                problems.add(path, number, f"not valid JSON ({err.msg.removesuffix(' at')} at column {err.colno})")
                continue
            if not isinstance(record, dict):
                problems.add(path, number, f"expected a JSON object, got {type(record).__name__}")
                continue
            yield number, record


def parse_jsonl(path: Path, problems: ProblemList, parse: Callable[[dict, int], T | None],
                what: str) -> list[T]:
    """``parse(record, line)`` of every line, refusing a second record with the same ``id`` and a
    file without any record (``what`` names them in that message)."""
    parsed: list[T] = []
    seen: dict[str, int] = {}
    for line, record in iter_jsonl(path, problems):
        item = parse(record, line)
        if item is None:
            continue
        if item.id in seen:
            problems.add(path, line, f"field 'id': duplicate id '{item.id}' (first on line {seen[item.id]})")
            continue
        seen[item.id] = line
        parsed.append(item)
    if not parsed and not problems.problems:
        problems.add(path, None, f"no {what}")
    return parsed


def field_value(record: dict, name: str, kind: type | tuple[type, ...], path: Path, line: int,
                problems: ProblemList, required: bool = True) -> Any:
    """Returns ``record[name]`` if present with the right type; otherwise records a problem."""
    if name not in record or record[name] is None:
        if required:
            problems.add(path, line, f"field '{name}' is missing")
        return None
    value = record[name]
    if not isinstance(value, kind) or isinstance(value, bool) and bool not in _as_tuple(kind):
        expected = " or ".join(k.__name__ for k in _as_tuple(kind))
        problems.add(path, line, f"field '{name}' must be {expected}, got {type(value).__name__}")
        return None
    if isinstance(value, str) and required and not value.strip():
        problems.add(path, line, f"field '{name}' is empty")
        return None
    return value


def _as_tuple(kind: type | tuple[type, ...]) -> tuple[type, ...]:
    return kind if isinstance(kind, tuple) else (kind,)


def sha256_of_files(root: Path, paths: list[Path], extra: list[Path] = ()) -> str:
    """One digest over the files' paths (relative to ``root``; ``extra`` by name) and contents."""
    digest = hashlib.sha256()
    named = [(p.relative_to(root).as_posix(), p) for p in sorted(paths)]
    named += [(p.name, p) for p in extra]
    for label, path in named:
        digest.update(label.encode())
        digest.update(b"\0")
        with path.open("rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
        digest.update(b"\0")
    return digest.hexdigest()
