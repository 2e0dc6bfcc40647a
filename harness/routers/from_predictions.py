"""``router=from_predictions``: the route your system took, read from the predictions file.

The ``predictions`` generator fills ``Generation.route`` from each JSONL record's ``route``
field; a question without a prediction, or a prediction without a route, has no route (None),
which counts as a routing miss.
"""

from __future__ import annotations

from harness.cache import DiskCache
from harness.results.records import QuestionRecord
from harness.routers.base import Router


class FromPredictionsRouter(Router):
    def route(self, records: list[QuestionRecord], cache: DiskCache | None = None) -> list[str | None]:
        return [record.generation.route if record.generation is not None else None for record in records]
