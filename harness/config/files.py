"""Writing a file whole or not at all: the one atomic write of the package (in the base layer, which every part may import)."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def replace_file(path: Path, text: str, encoding: str = "utf-8", newline: str | None = None) -> None:
    """Writes ``text`` to ``path`` whole or not at all: a kill mid-write leaves the file as it was.

    The text goes to a new file beside ``path`` (same file system), which then replaces ``path`` in
    one step (``os.replace``); a failed write leaves no staging file behind.

    Args:
        newline: as :func:`open`'s (``""``: written as given, e.g. a CSV's ``\\r\\n``).

    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "state.json"
    >>> replace_file(path, '{"done": [1]}')
    >>> path.read_text()
    '{"done": [1]}'
    """
    path = Path(path)
    handle, staging = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(handle, "w", encoding=encoding, newline=newline) as stream:
            stream.write(text)
        os.replace(staging, path)
    finally:
        if os.path.exists(staging):
            os.unlink(staging)
