"""Generation through the disk cache: each answer is keyed by generator and rendered prompt.

Identical prompts are never generated twice, across the jobs of a sweep and across re-runs:
the no-context baseline is computed once for a whole sweep. A cached answer keeps the timings
measured when it was generated, and is marked ``extra["cached"]``.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import asdict

from harness.cache import DiskCache, content_key, json_codec
from harness.generators.base import Generation, GenerationRequest, Generator

log = logging.getLogger(__name__)
GENERATION_CODEC = json_codec(asdict, lambda row: Generation(**row))


def generate_cached(generator: Generator, requests: list[GenerationRequest], cache: DiskCache,
                    alone: frozenset[int] = frozenset(),
                    timed: Callable[[list[int], float, float], None] | None = None) -> list[Generation]:
    """The answers to ``requests``; those at the positions in ``alone`` generated one call per
    request (a local model then measures their time to first token and latency), the others in one
    call (a local model batches them). Cached apart: an answer decoded alone keeps its timings.
    A generator that is not ``cacheable`` (answers read from a file) is asked for all of them.

    ``timed(positions, start, end)`` hears of each stretch of wall-clock time (seconds since the
    epoch) spent on the requests at ``positions``: the cache look-up, the batch, each lone request.
    """
    timed = timed or (lambda positions, start, end: None)
    start = time.time()
    if not generator.cacheable:
        generations = generator.generate(requests)
        timed(list(range(len(requests))), start, time.time())
        return generations
    fingerprint = generator.fingerprint()
    keys = [content_key({**fingerprint, "decoded": "alone"} if i in alone else fingerprint, list(request.messages))
            for i, request in enumerate(requests)]
    found: dict[int, Generation] = {}
    for index, key in enumerate(keys):
        cached = cache.get("generations", key, GENERATION_CODEC)
        if cached is not None:
            cached.extra["cached"] = True
            found[index] = cached
    timed(sorted(found), start, time.time())
    missing = [i for i in range(len(requests)) if i not in found]
    if missing:
        log.info("generating %d answers (%d from the cache)", len(missing), len(requests) - len(missing))
        batched, single = [i for i in missing if i not in alone], [i for i in missing if i in alone]
        start = time.time()
        fresh = generator.generate([requests[i] for i in batched]) if batched else []
        timed(batched, start, time.time())
        for index in single:
            start = time.time()
            fresh += generator.generate([requests[index]])
            timed([index], start, time.time())
        for index, generation in zip(batched + single, fresh):
            found[index] = generation
            if not generation.failed:  # failures are retried on the next run, never cached
                cache.put("generations", keys[index], generation, GENERATION_CODEC)
    return [found[i] for i in range(len(requests))]
