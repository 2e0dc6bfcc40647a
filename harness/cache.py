"""Content-addressed disk cache for expensive, pure stages (chunks, indexes, embeddings, answers).

A key is the sha256 of a JSON description of every input: the data's content hash, the
component's config and the model fingerprint. Every entry is a folder,
``<root>/v2/<namespace>/<key>/``, holding the value's files and ``SHA256SUMS``, the checksum of
each of them.

The cache can neither execute nor lie:

- values are stored as JSON or as ``numpy`` arrays loaded with ``allow_pickle=False`` (a
  :class:`Codec` per kind of value); nothing is ever unpickled, so a crafted entry in a shared
  cache folder runs no code;
- every file is checked against ``SHA256SUMS`` before it is read. A mismatch, a missing or extra
  file, or a value its codec refuses is a warning naming the file, counts as
  ``<namespace>/corrupt`` in :attr:`DiskCache.stats` (logged as ``cache/<namespace>_corrupt``)
  and the value is recomputed, never used.

Writes go to a staging folder that is renamed into place, so parallel launcher workers sharing
a cache never see half-written entries.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import shutil
import tempfile
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, TypeVar

import numpy as np

log = logging.getLogger(__name__)
T = TypeVar("T")

LAYOUT = "v2"  # pickled entries of the first layout lived beside this folder and are never read
CHECKSUMS = "SHA256SUMS"


def content_key(*parts: Any) -> str:
    """sha256 of the parts' canonical JSON (sorted keys)."""
    payload = json.dumps(parts, sort_keys=True, default=str, separators=(",", ":"))
    return hashlib.sha256(payload.encode()).hexdigest()


class CorruptEntry(Exception):
    """A cache entry whose files do not match their checksums, or that its codec refuses."""


@dataclass(frozen=True)
class Codec(Generic[T]):
    """How one kind of value is written into, and read back from, an entry folder.

    ``save(value, folder)`` writes files into an existing folder; ``load(folder)`` reads them
    back. Neither may use pickle.
    """

    save: Callable[[T, Path], None]
    load: Callable[[Path], T]


def json_codec(encode: Callable[[Any], Any] = lambda value: value,
               decode: Callable[[Any], Any] = lambda data: data) -> Codec:
    """A value stored as ``value.json`` through ``encode`` (to JSON data) and ``decode`` (back)."""

    def save(value: Any, folder: Path) -> None:
        text = json.dumps(encode(value), ensure_ascii=False, default=_json_scalar)
        (folder / "value.json").write_text(text, encoding="utf-8")

    def load(folder: Path) -> Any:
        return decode(json.loads((folder / "value.json").read_text(encoding="utf-8")))

    return Codec(save, load)


def arrays_codec(encode: Callable[[Any], dict[str, np.ndarray]] = lambda arrays: arrays,
                 decode: Callable[[dict[str, np.ndarray]], Any] = lambda arrays: arrays) -> Codec:
    """A value stored as named numeric arrays, one ``<name>.npy`` each (``allow_pickle=False``)."""

    def save(value: Any, folder: Path) -> None:
        for name, array in encode(value).items():
            with (folder / f"{name}.npy").open("wb") as handle:
                np.save(handle, np.asarray(array), allow_pickle=False)

    def load(folder: Path) -> Any:
        return decode({path.stem: np.load(path, allow_pickle=False) for path in sorted(folder.glob("*.npy"))})

    return Codec(save, load)


JSON: Codec = json_codec()
ARRAY: Codec = arrays_codec(lambda array: {"array": array}, lambda arrays: arrays["array"])


class DiskCache:
    """Stores values under ``<root>/v2/<namespace>/<key>/``; ``enabled=False`` always recomputes.

    ``stats`` counts ``<namespace>/hit``, ``/miss`` and ``/corrupt`` (an entry found but not
    trusted: it is also a miss, since its value is recomputed).
    """

    def __init__(self, root: str | Path, enabled: bool = True) -> None:
        self.root = Path(root)
        self.enabled = enabled
        self.stats: Counter[str] = Counter()

    def entry(self, namespace: str, key: str) -> Path:
        """The folder that holds (or would hold) the entry."""
        return self.root / LAYOUT / namespace / key

    def contains(self, namespace: str, key: str) -> bool:
        """Whether an entry exists (not whether it is intact: :meth:`get` checks that)."""
        return self.enabled and self.entry(namespace, key).exists()

    def get(self, namespace: str, key: str, codec: Codec[T] = JSON) -> T | None:
        """The stored value, or None (counted as a miss) when absent, disabled or corrupt."""
        target = self.entry(namespace, key)
        if self.enabled and target.exists():
            try:
                value = self._read(target, codec)
                self.stats[f"{namespace}/hit"] += 1
                return value
            except CorruptEntry as err:  # never trusted: rebuilt by the caller
                log.warning("cache entry %s is corrupt (%s); recomputing", target, err)
                self.stats[f"{namespace}/corrupt"] += 1
                _remove(target)
        self.stats[f"{namespace}/miss"] += 1
        return None

    def put(self, namespace: str, key: str, value: T, codec: Codec[T] = JSON) -> None:
        if self.enabled:
            self._store(self.entry(namespace, key), value, codec)

    def get_or_build(self, namespace: str, key: str, compute: Callable[[], T], codec: Codec[T] = JSON) -> T:
        """The stored value if present and intact, else ``compute()``, stored."""
        found = self.get(namespace, key, codec)
        if found is not None:
            return found
        value = compute()
        self.put(namespace, key, value, codec)
        return value

    def work_folder(self, namespace: str, key: str) -> Path:
        """Where an entry too large to hold in memory is written piece by piece before
        :meth:`commit`; it outlives a killed run, so the next one can resume from it."""
        return self.root / LAYOUT / namespace / f".{key}.partial"

    def commit(self, namespace: str, key: str, folder: Path) -> None:
        """Checksums a filled :meth:`work_folder` and renames it into place as the entry."""
        write_checksums(folder)
        _replace_dir(folder, self.entry(namespace, key))

    @staticmethod
    def _read(target: Path, codec: Codec[T]) -> T:
        verify(target)
        try:
            return codec.load(target)
        except Exception as err:  # e.g. an object array that would need pickle
            raise CorruptEntry(f"{target}: unreadable: {type(err).__name__}: {err}") from err

    @staticmethod
    def _store(target: Path, value: Any, codec: Codec) -> None:
        target.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(dir=target.parent, prefix=f".{target.name}."))
        try:
            codec.save(value, staging)
            write_checksums(staging)
            _replace_dir(staging, target)
        finally:
            shutil.rmtree(staging, ignore_errors=True)


def write_checksums(folder: Path) -> None:
    """Writes ``SHA256SUMS`` (``sha256sum`` format) for every file under ``folder``."""
    lines = [f"{_sha256(path)}  {name}" for name, path in _files(folder).items()]
    (folder / CHECKSUMS).write_text("\n".join(lines) + "\n", encoding="utf-8")


def verify(folder: Path) -> None:
    """Raises :class:`CorruptEntry` naming the first file that does not match ``SHA256SUMS``."""
    sums = folder / CHECKSUMS
    if not folder.is_dir() or not sums.is_file():
        raise CorruptEntry(f"{sums}: missing")
    expected: dict[str, str] = {}
    for number, line in enumerate(sums.read_text(encoding="utf-8", errors="replace").splitlines(), start=1):
        digest, _, name = line.partition("  ")
        if len(digest) != 64 or not name:
            raise CorruptEntry(f"{sums}:{number}: malformed line")
        expected[name] = digest
    found = _files(folder)
    for name in sorted(expected.keys() | found.keys()):
        if name not in found:
            raise CorruptEntry(f"{folder / name}: listed in {CHECKSUMS} but missing")
        if name not in expected:
            raise CorruptEntry(f"{found[name]}: not listed in {CHECKSUMS}")
        if _sha256(found[name]) != expected[name]:
            raise CorruptEntry(f"{found[name]}: checksum mismatch")


def _files(folder: Path) -> dict[str, Path]:
    return {path.relative_to(folder).as_posix(): path for path in sorted(folder.rglob("*"))
            if path.is_file() and path.name != CHECKSUMS}


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _json_scalar(value: Any) -> Any:
    if isinstance(value, np.generic):  # numpy floats and ints from metric code
        return value.item()
    raise TypeError(f"{type(value).__name__} is not JSON serialisable")


def _remove(path: Path) -> None:
    if path.is_dir():
        shutil.rmtree(path, ignore_errors=True)
    else:
        path.unlink(missing_ok=True)


def _replace_dir(staging: Path, target: Path) -> None:
    """Renames ``staging`` to ``target``, moving an existing entry out of the way first
    (``judge.cache=refresh`` overwrites; a reader meanwhile sees a miss, never a mixed entry)."""
    try:
        os.rename(staging, target)
        return
    except OSError:
        if not target.exists():
            raise
    trash = Path(tempfile.mkdtemp(dir=target.parent, prefix=f".{target.name}.old."))
    try:
        try:
            os.rename(target, trash / "entry")
        except OSError:
            pass  # another worker moved it first
        try:
            os.rename(staging, target)
        except OSError:
            # Another worker stored the same entry meanwhile: identical content, keep theirs.
            if not target.exists():
                raise
    finally:
        shutil.rmtree(trash, ignore_errors=True)
