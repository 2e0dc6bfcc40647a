"""Content-addressed disk cache for expensive, pure stages (chunks, indexes, embeddings).

A key is the sha256 of a JSON description of every input: the data's content hash, the
component's config and the model fingerprint. Writes go to a temporary path and are renamed
into place, so parallel launcher workers sharing a cache never see half-written entries.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import pickle
import shutil
import tempfile
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

log = logging.getLogger(__name__)
T = TypeVar("T")


def content_key(*parts: Any) -> str:
    """sha256 of the parts' canonical JSON (sorted keys)."""
    payload = json.dumps(parts, sort_keys=True, default=str, separators=(",", ":"))
    return hashlib.sha256(payload.encode()).hexdigest()


class DiskCache:
    """Stores values under ``<root>/<namespace>/<key>``; ``enabled=False`` always recomputes."""

    def __init__(self, root: str | Path, enabled: bool = True) -> None:
        self.root = Path(root)
        self.enabled = enabled
        self.stats: Counter[str] = Counter()

    def get_or_compute(self, namespace: str, key: str, compute: Callable[[], T]) -> T:
        """A pickled value: loaded if present, else computed and stored."""
        return self.get_or_build(namespace, key, compute, save=_save_pickle, load=_load_pickle, directory=False)

    def get(self, namespace: str, key: str) -> Any | None:
        """The pickled value stored under the key, or None (counted as a miss)."""
        target = self.root / namespace / key
        if self.enabled and target.exists():
            try:
                value = _load_pickle(target)
                self.stats[f"{namespace}/hit"] += 1
                return value
            except Exception as err:
                log.warning("cache entry %s unreadable (%s); recomputing", target, err)
                _remove(target)
        self.stats[f"{namespace}/miss"] += 1
        return None

    def put(self, namespace: str, key: str, value: Any) -> None:
        if self.enabled:
            self._store(self.root / namespace / key, value, _save_pickle, directory=False)

    def get_or_build(self, namespace: str, key: str, compute: Callable[[], T],
                     save: Callable[[T, Path], None], load: Callable[[Path], T],
                     directory: bool = True) -> T:
        """Like :meth:`get_or_compute` with custom (de)serialisation to a file or folder."""
        if not self.enabled:
            self.stats[f"{namespace}/miss"] += 1
            return compute()
        target = self.root / namespace / key
        if target.exists():
            try:
                value = load(target)
                self.stats[f"{namespace}/hit"] += 1
                return value
            except Exception as err:  # a corrupt entry is rebuilt, never trusted
                log.warning("cache entry %s unreadable (%s); recomputing", target, err)
                _remove(target)
        self.stats[f"{namespace}/miss"] += 1
        value = compute()
        self._store(target, value, save, directory)
        return value

    @staticmethod
    def _store(target: Path, value: Any, save: Callable[[Any, Path], None], directory: bool) -> None:
        target.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(dir=target.parent, prefix=f".{target.name}."))
        try:
            out = staging / "entry" if not directory else staging
            save(value, out)
            if directory:
                _replace_dir(staging, target)
            else:
                os.replace(out, target)
        finally:
            shutil.rmtree(staging, ignore_errors=True)


def _save_pickle(value: Any, path: Path) -> None:
    path.write_bytes(pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL))


def _load_pickle(path: Path) -> Any:
    return pickle.loads(path.read_bytes())


def _remove(path: Path) -> None:
    if path.is_dir():
        shutil.rmtree(path, ignore_errors=True)
    else:
        path.unlink(missing_ok=True)


def _replace_dir(staging: Path, target: Path) -> None:
    try:
        os.rename(staging, target)
    except OSError:
        # Another worker stored the same entry first; identical content, keep theirs.
        if not target.exists():
            raise
