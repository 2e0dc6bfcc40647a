"""Progress of the slow stages (generation, judging, embedding, BERTScore) with an ETA.

On a terminal it is a tqdm bar on stderr. In a log (no terminal) a bar would be a stream of
carriage returns, so the same figures are written as a log line every ``LOG_EVERY_SECONDS``
(and at the end), which Hydra's job logging sends to the console and the job's log file.
Nothing is shown for a single step: a bar is for work long enough to wonder about.
"""

from __future__ import annotations

import io
import logging
import sys
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import TypeVar

from tqdm import tqdm

log = logging.getLogger(__name__)
T = TypeVar("T")

# How often a log line reports progress when the output is not a terminal.
LOG_EVERY_SECONDS = 15.0


class _LoggedBar(tqdm):
    """A tqdm whose refreshes become log lines instead of terminal redraws."""

    _logged_n = -1

    def display(self, msg: str | None = None, pos: int | None = None) -> bool:
        if self.n != self._logged_n:  # close() refreshes once more at the same count
            self._logged_n = self.n
            log.info("%s", msg if msg is not None else self.__str__())
        return True


def progress(steps: Iterable[T], total: int, desc: str, unit: str = "batch") -> Iterator[T]:
    """``steps`` as they come, with a progress bar (or log lines) when there is more than one.

    Example:
        >>> list(progress(range(3), total=3, desc="generating"))
        [0, 1, 2]
    """
    if total <= 1:
        yield from steps
        return
    bar = _bar(steps, total, desc, unit)
    try:
        yield from bar
    finally:
        bar.close()


@contextmanager
def progress_bar(total: int, desc: str, unit: str = "step") -> Iterator[tqdm | None]:
    """A bar to ``update()`` by hand (e.g. once per decoding step), or None for a single step."""
    if total <= 1:
        yield None
        return
    bar = _bar(None, total, desc, unit)
    try:
        yield bar
    finally:
        bar.close()


def _bar(steps: Iterable | None, total: int, desc: str, unit: str) -> tqdm:
    if sys.stderr.isatty():
        return tqdm(steps, total=total, desc=desc, unit=unit, leave=False, dynamic_ncols=True)
    return _LoggedBar(steps, total=total, desc=desc, unit=unit, file=io.StringIO(), mininterval=LOG_EVERY_SECONDS,
                      bar_format=f"{{desc}}: {{n_fmt}}/{{total_fmt}} {_plural(unit)} ({{percentage:.0f}}%), "
                                 "{elapsed} elapsed, ETA {remaining}")


def _plural(unit: str) -> str:
    return unit + ("es" if unit.endswith(("s", "ch", "sh", "x")) else "s")


def map_with_progress(function, items: list, concurrency: int, desc: str, unit: str = "request") -> list:
    """``[function(item) for item in items]``, on ``concurrency`` threads when above 1 (results
    in input order), with a progress bar over the items."""
    if concurrency == 1:
        return [function(item) for item in progress(items, len(items), desc, unit)]
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=concurrency) as pool:
        return list(progress(pool.map(function, items), len(items), desc, unit))
