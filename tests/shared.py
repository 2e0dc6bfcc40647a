"""Results computed once per test session and read by every test process that needs them.

A session-scoped fixture runs once per xdist worker; ``once`` runs its ``build`` once for the whole
``pytest -n N`` session (as pytest-xdist's documentation suggests: a FileLock in the folder all the
workers' temporary folders share). For what is expensive and only read afterwards: a reference
library's values (numba compiles ranx in each process that calls it), a CLI run several tests
assert different things about.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any, Callable

from filelock import FileLock

_DONE = "result.json"
_FAILED = "failed.txt"
_MEMO: dict[Path, Any] = {}


def shared_root(tmp_path_factory) -> Path:
    """The folder this session's workers share (pytest-<n>/); without xdist the session's own."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


def once(tmp_path_factory, name: str, build: Callable[[Path], Any]) -> Any:
    """``build(folder)``'s JSON-serialisable value, built by the first test process to ask and read
    back by the others (they wait while it is built). ``folder`` (empty, kept for the session) is where
    the build may write files the readers open; readers must not change them. A build that raised
    fails every reader with its message, not built again."""
    folder = shared_root(tmp_path_factory) / "shared" / name
    if folder in _MEMO:
        return _MEMO[folder]
    folder.parent.mkdir(parents=True, exist_ok=True)
    with FileLock(str(folder) + ".lock"):
        if (folder / _FAILED).is_file():
            raise RuntimeError(f"the shared {name!r} failed to build in another test:\n"
                               + (folder / _FAILED).read_text())
        if not (folder / _DONE).is_file():
            folder.mkdir(exist_ok=True)
            try:
                value = build(folder)
            except BaseException as err:
                (folder / _FAILED).write_text(f"{type(err).__name__}: {err}")
                raise
            (folder / _DONE).write_text(json.dumps(value))
        _MEMO[folder] = json.loads((folder / _DONE).read_text())
    return _MEMO[folder]


def completed(value: dict) -> subprocess.CompletedProcess:
    """A CompletedProcess from ``process(done)``'s dict (what ``once`` can store)."""
    return subprocess.CompletedProcess(value["args"], value["returncode"], value["stdout"], value["stderr"])


def process(done: subprocess.CompletedProcess) -> dict:
    """A CompletedProcess as a JSON-serialisable dict (``completed`` turns it back)."""
    return {"args": [str(a) for a in done.args], "returncode": done.returncode, "stdout": done.stdout,
            "stderr": done.stderr}
