"""The routing stage: the router under test picks each question's route (seed 001)."""

from __future__ import annotations

from harness.results.records import QuestionRecord
from harness.results.stage_records import SpanRecord
from harness.routers.base import Router
from harness.stages.stage import PipelineState, Stage, StageClock


class Route(Stage):
    """Runs after answering: a predictions file brings the route with the answer."""

    name = "route"

    def __init__(self, router: Router | None) -> None:
        self.router = router

    @property
    def enabled(self) -> bool:
        return self.router is not None

    def run(self, state: PipelineState, clock: StageClock) -> None:
        for record, route in zip(state.records, self.router.route(state.records, state.cache), strict=True):
            record.predicted_route = route

    def spans(self, record: QuestionRecord, clock: StageClock) -> list[SpanRecord]:
        start, end = clock.window_of(record.question.id)
        expected = {"expected_route": record.question.route} if record.question.route is not None else {}
        return [SpanRecord(name=self.name, kind="routing", start=start, end=end,
                           inputs={"question": record.question.text}, outputs={"route": record.predicted_route},
                           attributes={"router": type(self.router).__name__, **expected})]
