"""Who computes a corpus's embeddings: sentence-transformers here (one process, or its own
multi-process pool over CPU processes or GPUs), or Ray Data's ``map_batches`` on a Ray cluster.

Each is an option of ``retriever.encodings``; :meth:`Encoding.pieces` yields (row numbers,
vectors) for the pending blocks, which :func:`harness.retrievers.embeddings.embed_corpus` writes.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass

import numpy as np

from harness.models import load_sentence_transformer, resolve_device


@dataclass(frozen=True)
class EncoderSpec:
    """The encoder and how it encodes; sent as is to Ray workers."""

    model: str
    device: str
    batch_size: int
    normalize: bool

    def encode(self, texts: list[str], pool=None) -> np.ndarray:
        encoder = load_sentence_transformer(self.model, self.device)
        # `pool` is an encode() argument since sentence-transformers 5; passed only when there is one.
        vectors = encoder.encode(texts, batch_size=self.batch_size, normalize_embeddings=self.normalize,
                                 convert_to_numpy=True, show_progress_bar=False, **({"pool": pool} if pool else {}))
        return np.asarray(vectors, dtype=np.float32)


class Encoding(ABC):
    @abstractmethod
    def pieces(self, spec: EncoderSpec, texts: list[str], pending: list[tuple[int, int]]):
        """(row numbers, vectors) covering every row of the ``pending`` (start, stop) blocks."""


class LocalEncoding(Encoding):
    """sentence-transformers in this process (``processes: 1``) or in its multi-process pool.

    Args:
        processes: encoding processes on this machine (each loads the model once).
        devices: one device per process (``[cuda:0, cuda:1]``); null: the retriever's device, ``processes`` times.
    """

    def __init__(self, processes: int = 1, devices: list[str] | None = None) -> None:
        if processes < 1:
            raise ValueError(f"processes must be >= 1, got {processes}")
        self.processes, self.devices = processes, list(devices) if devices else None

    def pieces(self, spec: EncoderSpec, texts: list[str], pending: list[tuple[int, int]]):
        devices = self.devices or ([resolve_device(spec.device)] * self.processes if self.processes > 1 else None)
        if devices is None:  # one batch per piece: the progress bar moves batch by batch
            for start, stop in pending:
                for first in range(start, stop, spec.batch_size):
                    last = min(stop, first + spec.batch_size)
                    yield np.arange(first, last), spec.encode(texts[first:last])
            return
        encoder = load_sentence_transformer(spec.model, spec.device)
        pool = encoder.start_multi_process_pool(target_devices=devices)
        try:
            for start, stop in pending:
                yield np.arange(start, stop), spec.encode(texts[start:stop], pool=pool)
        finally:
            encoder.stop_multi_process_pool(pool)


class RayActorEncoder:
    """One Ray Data actor: loads the encoder once, then embeds the batches it is given."""

    def __init__(self, spec: EncoderSpec) -> None:
        self.spec = spec
        load_sentence_transformer(spec.model, spec.device)

    def __call__(self, batch: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        return {"row": batch["row"], "embedding": self.spec.encode([str(t) for t in batch["text"]])}


class RayDataEncoding(Encoding):
    """Ray Data ``map_batches`` over a pool of encoder actors, on the cluster at ``address``.

    Args:
        address: a Ray cluster (``auto``, ``ray://host:10001``), or null to use the Ray already
            initialised in this process, else to start a local one (stopped when done).
        actors: encoder actors (model copies) running at once.
        batch_rows: rows handed to an actor per call.
        num_gpus: GPUs per actor (1 on a GPU cluster), num_cpus: CPUs per actor.
    """

    BATCHES_PER_BLOCK = 4  # input blocks of the Ray dataset hold this many actor batches

    def __init__(self, address: str | None = None, actors: int = 2, batch_rows: int = 256,
                 num_gpus: float = 0, num_cpus: float = 1) -> None:
        if actors < 1 or batch_rows < 1:
            raise ValueError(f"actors and batch_rows must be >= 1, got {actors}, {batch_rows}")
        self.address, self.actors, self.batch_rows = address, actors, batch_rows
        self.num_gpus, self.num_cpus = num_gpus, num_cpus

    def pieces(self, spec: EncoderSpec, texts: list[str], pending: list[tuple[int, int]]):
        import pyarrow as pa
        import ray

        started = not ray.is_initialized()
        if started:
            ray.init(address=self.address, include_dashboard=False, log_to_driver=False)
        try:
            rows = np.concatenate([np.arange(start, stop) for start, stop in pending])
            table = pa.table({"row": rows, "text": [texts[i] for i in rows]})
            # Several input blocks, so that every actor gets work.
            step = self.batch_rows * self.BATCHES_PER_BLOCK
            blocks = [table.slice(start, step) for start in range(0, len(table), step)]
            embedded = ray.data.from_arrow(blocks).map_batches(
                RayActorEncoder, fn_constructor_kwargs={"spec": spec}, batch_size=self.batch_rows,
                batch_format="numpy", concurrency=self.actors,
                num_gpus=self.num_gpus, num_cpus=self.num_cpus)
            for batch in embedded.iter_batches(batch_size=None, batch_format="numpy"):
                yield np.asarray(batch["row"]), np.asarray(batch["embedding"], dtype=np.float32)
        finally:
            if started:
                ray.shutdown()
