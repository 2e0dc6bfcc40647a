"""``router=fixed``: every question takes one route (the only route of ``routes=single``)."""

from __future__ import annotations

from harness.cache import DiskCache
from harness.results.records import QuestionRecord
from harness.routers.base import Router


class FixedRouter(Router):
    """Args:
        route: the route every question gets.
    """

    def __init__(self, route: str) -> None:
        if not route:
            raise ValueError("router.route must be a non-empty route name")
        self.route_name = route

    def route(self, records: list[QuestionRecord], cache: DiskCache | None = None) -> list[str | None]:
        return [self.route_name] * len(records)

    def routes(self) -> set[str]:
        return {self.route_name}
