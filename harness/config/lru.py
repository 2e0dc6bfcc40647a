"""A dict that keeps the entries used last, for the in-memory caches of a process (compositions,
built parts, MLflow entities): bounded, so that a long sweep or race does not grow without end.
In the base layer, as every layer keeps such caches."""

from __future__ import annotations

from collections import OrderedDict


class LeastRecentlyUsed(OrderedDict):
    """A dict of at most ``size`` entries: setting one more drops the one used longest ago."""

    def __init__(self, size: int) -> None:
        super().__init__()
        self.size = size

    def __reduce__(self):
        # OrderedDict's own reduce calls the class with no arguments: a copy or pickle keeps the size.
        return type(self), (self.size,), None, None, iter(self.items())

    def __getitem__(self, key):
        self.move_to_end(key)
        return super().__getitem__(key)

    def __setitem__(self, key, value) -> None:
        super().__setitem__(key, value)
        self.move_to_end(key)
        while len(self) > self.size:
            self.popitem(last=False)
