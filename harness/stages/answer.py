"""The generation stage: the sampled questions answered, with and/or without context (:class:`Answering`)."""

from __future__ import annotations

from harness.generators.base import Generation
from harness.results.records import QuestionRecord
from harness.results.stage_records import SpanRecord
from harness.stages.answering import Answering
from harness.stages.stage import PipelineState, Stage, StageClock


class Answer(Stage):
    name = "generate"

    def __init__(self, answering: Answering | None) -> None:
        self.answering = answering

    @property
    def enabled(self) -> bool:
        return self.answering is not None and self.answering.generator.enabled

    def run(self, state: PipelineState, clock: StageClock) -> None:
        self.answering.answer(state.records, state.cache, clock)
        state.tallies.append(self.answering.tally)

    def spans(self, record: QuestionRecord, clock: StageClock) -> list[SpanRecord]:
        answers = (("with_context", record.generation), ("no_context", record.baseline))
        return [self._span(record, condition, generation, clock) for condition, generation in answers
                if generation is not None]

    def _span(self, record: QuestionRecord, condition: str, generation: Generation, clock: StageClock) -> SpanRecord:
        start, end = clock.window_of(record.question.id, condition)
        cached = bool(generation.extra.get("cached"))
        timings = {key: getattr(generation, key) for key in ("ttft_seconds", "latency_seconds")
                   if getattr(generation, key) is not None}
        usage = {key: getattr(generation, key) for key in ("input_tokens", "output_tokens")
                 if getattr(generation, key) is not None}
        events = []
        if generation.ttft_seconds is not None and not cached:  # decoded on its own in this run
            events.append({"name": "first token", "time": start + generation.ttft_seconds, "attributes": {}})
        return SpanRecord(name=f"generate {condition}", kind="generation", start=start, end=end,
                          inputs={"messages": record.prompts.get(condition, [])},
                          outputs=None if generation.failed else generation.text, usage=usage or None,
                          attributes={"model": self.answering.generator.model, "condition": condition,
                                      "cached": cached, **timings},
                          error=generation.error, events=events)
