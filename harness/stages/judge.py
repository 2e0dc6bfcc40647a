"""The judging stage: every rubric on the questions that got answers (:class:`Judging`)."""

from __future__ import annotations

from harness.results.records import QuestionRecord
from harness.results.stage_records import SpanRecord
from harness.stages.answering import Answering
from harness.stages.judging import Judging
from harness.stages.stage import PipelineState, Stage, StageClock


class Judge(Stage):
    """Args:
        judging: the rubrics and their judge.
        answering: the answering stage's settings, whose sample is what gets judged (retrieval
            rubrics included); None or disabled: every question.
    """

    name = "judge"

    def __init__(self, judging: Judging | None, answering: Answering | None = None) -> None:
        self.judging, self.answering = judging, answering

    @property
    def enabled(self) -> bool:
        return self.judging is not None and self.judging.judge.enabled

    def run(self, state: PipelineState, clock: StageClock) -> None:
        answers = self.answering is not None and self.answering.generator.enabled
        judged = self.answering.selected(state.records) if answers else state.records
        # The self-check samples the whole dataset's questions, not only the judged ones.
        state.figures.update(self.judging.run(judged, state.cache, population=state.records, clock=clock))
        state.tallies.append(self.judging.tally)

    def spans(self, record: QuestionRecord, clock: StageClock) -> list[SpanRecord]:
        spans = []
        for key, judgement in record.judgements.items():
            start, end = clock.window_of(record.question.id, key)
            rubric, target = key.rsplit("/", 1)
            said = {"score": judgement.score, "verdict": judgement.verdict, "reasoning": judgement.reasoning,
                    "dimensions": judgement.dimensions or None}
            spans.append(SpanRecord(
                name=f"judge {key}", kind="judging", start=start, end=end,
                inputs={"rubric": rubric, "target": target},
                outputs=None if judgement.failed else {"reply": judgement.raw, **{k: v for k, v in said.items()
                                                                                 if v is not None}},
                attributes={"judge": judgement.detail.get("judge"), "cached": judgement.cached,
                            "values": dict(judgement.values), "reply": judgement.raw},
                error=judgement.missing))
        return spans
