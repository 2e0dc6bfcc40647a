"""Corpus embeddings written block by block into a memory-mapped ``.npy`` file in the cache.

Peak memory is one block of vectors plus the index, not the corpus. The work folder
(:meth:`DiskCache.work_folder`) keeps ``array.npy`` and ``progress.json`` (the blocks written);
a killed run resumes from the last finished block. Once every block is in, the folder is
checksummed and becomes an ordinary cache entry, read back as a read-only memory map.

The encoding itself is done by an existing engine (:mod:`harness.retrievers.encoding`):
sentence-transformers in this process or its multi-process pool, or Ray Data.
"""

from __future__ import annotations

import json
import logging
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import numpy as np
from filelock import FileLock

from harness.cache import ARRAY, Codec, DiskCache
from harness.config.files import replace_file
from harness.progress import progress_bar

log = logging.getLogger(__name__)

ARRAY_FILE = "array.npy"  # the name ARRAY uses, so entries of either codec read alike
PROGRESS_FILE = "progress.json"


def _load_mapped(folder: Path) -> np.ndarray:
    return np.load(folder / ARRAY_FILE, mmap_mode="r", allow_pickle=False)


# Stored as ARRAY stores a value, read back as a memory map (pages come from disk on demand).
MAPPED_ARRAY: Codec = Codec(ARRAY.save, _load_mapped)

Pieces = Iterator[tuple[np.ndarray, np.ndarray]]  # (row numbers, their vectors)


class BlockWriter:
    """Writes vectors into ``folder/array.npy`` and records which blocks of rows are complete."""

    def __init__(self, folder: Path, rows: int, block_rows: int) -> None:
        self.folder, self.rows, self.block_rows = folder, rows, block_rows
        self.blocks = -(-rows // block_rows)
        self.done: set[int] = set()
        self.started = False  # whether array.npy exists with this corpus's shape
        state = folder / PROGRESS_FILE
        if state.is_file() and (folder / ARRAY_FILE).is_file():
            saved = json.loads(state.read_text())
            if saved.get("rows") == rows and saved.get("block_rows") == block_rows:
                self.started, self.done = True, set(saved["done"])
        self.filled = np.zeros(self.blocks, dtype=np.int64)

    def pending(self) -> list[tuple[int, int]]:
        """(start, stop) rows of every block not yet written."""
        return [(b * self.block_rows, min(self.rows, (b + 1) * self.block_rows))
                for b in range(self.blocks) if b not in self.done]

    def write(self, rows: np.ndarray, vectors: np.ndarray) -> None:
        """Maps the file for this piece only: written pages go back to the page cache, so the
        process's memory stays bounded by a piece, whatever the corpus size."""
        if self.started:
            array = np.lib.format.open_memmap(self.folder / ARRAY_FILE, mode="r+")
        else:
            array = np.lib.format.open_memmap(self.folder / ARRAY_FILE, mode="w+", dtype=np.float32,
                                              shape=(self.rows, vectors.shape[1]))
            self.started = True
        array[rows] = vectors
        array.flush()  # the vectors reach the file before the record says they did
        del array
        blocks, counts = np.unique(rows // self.block_rows, return_counts=True)
        self.filled[blocks] += counts
        finished = [int(b) for b in blocks if self.filled[b] >= self._size(int(b))]
        if finished:
            self.done.update(finished)
            self._save_state()

    def _size(self, block: int) -> int:
        return min(self.rows, (block + 1) * self.block_rows) - block * self.block_rows

    def _save_state(self) -> None:
        replace_file(self.folder / PROGRESS_FILE,
                     json.dumps({"rows": self.rows, "block_rows": self.block_rows, "done": sorted(self.done)}))


def embed_corpus(texts: list[str], key: str, cache: DiskCache, encode, block_rows: int,
                 namespace: str = "dense") -> np.ndarray:
    """The corpus's embeddings as a read-only memory map, from the cache or computed.

    Args:
        texts: what to embed, in row order.
        key: the cache key (corpus and encoder).
        cache: where the entry and its work folder live.
        encode: ``encode(texts, pending) -> Pieces``: vectors for the rows of the pending
            (start, stop) blocks, in any order and any piece size.
        block_rows: rows per resumable block.
    """
    found = cache.get(namespace, key, MAPPED_ARRAY)
    if found is not None:
        return found
    if not cache.enabled:  # no entry to resume or keep: a temporary folder, unlinked once mapped
        folder = Path(tempfile.mkdtemp(prefix="harness-embeddings-"))
        try:
            _fill(folder, texts, encode, block_rows)
            return _load_mapped(folder)
        finally:
            shutil.rmtree(folder, ignore_errors=True)
    folder = cache.work_folder(namespace, key)
    locks = cache.root / ".locks"
    locks.mkdir(parents=True, exist_ok=True)
    with FileLock(str(locks / f"{namespace}.{key}.lock")):  # two jobs of a sweep never fill the same folder
        if cache.contains(namespace, key):  # another job finished it meanwhile
            found = cache.get(namespace, key, MAPPED_ARRAY)
            if found is not None:
                return found
        folder.mkdir(parents=True, exist_ok=True)
        _fill(folder, texts, encode, block_rows)
        (folder / PROGRESS_FILE).unlink()
        cache.commit(namespace, key, folder)
    return _load_mapped(cache.entry(namespace, key))


def _fill(folder: Path, texts: list[str], encode, block_rows: int) -> None:
    writer = BlockWriter(folder, len(texts), block_rows)
    pending = writer.pending()
    if len(pending) < writer.blocks:
        log.info("resuming embeddings in %s: %d of %d blocks already written", folder,
                 writer.blocks - len(pending), writer.blocks)
    remaining = sum(stop - start for start, stop in pending)
    with progress_bar(remaining, f"embedding {len(texts)} passages", unit="passage") as bar:
        for rows, vectors in encode(texts, pending):
            writer.write(rows, np.asarray(vectors, dtype=np.float32))
            if bar is not None:
                bar.update(len(rows))
    if writer.pending():
        raise RuntimeError(f"the encoder returned no vectors for blocks {writer.pending()[:5]}...")
