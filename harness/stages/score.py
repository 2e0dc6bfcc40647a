"""The scoring stage: every metric suite over every question's record, then the suites' aggregates."""

from __future__ import annotations

from typing import Any

from harness.metrics.suites import DerivedSuite, MetricSuite
from harness.results.records import QuestionRecord
from harness.results.stage_records import SpanRecord
from harness.stages.stage import PipelineState, Stage, StageClock


class Score(Stage):
    """Fills ``rows`` (the per-question table), ``aggregates`` and ``artifacts`` after it ran."""

    name = "score"

    def __init__(self, suites: dict[str, MetricSuite]) -> None:
        self.suites = suites
        self.rows: list[dict[str, Any]] = []
        self.aggregates: dict[str, float] = {}
        self.artifacts: dict[str, str] = {}
        self._counts: dict[str, int] = {}

    def run(self, state: PipelineState, clock: StageClock) -> None:
        records, suites = state.records, self.suites
        per_suite = {name: [] for name in suites}
        for suite in suites.values():
            suite.prepare(records, state.cache)
        columns = []
        for record in records:
            metrics = {}
            for name, suite in suites.items():
                if isinstance(suite, DerivedSuite):
                    continue
                values = suite.score(record)
                per_suite[name].append(values)
                metrics.update({f"{name}/{key}": value for key, value in values.items()})
            columns.append(metrics)
        for name, suite in suites.items():
            if isinstance(suite, DerivedSuite):
                per_suite[name] = suite.derive([dict(metrics) for metrics in columns])
                for metrics, values in zip(columns, per_suite[name], strict=True):
                    metrics.update({f"{name}/{key}": value for key, value in values.items()})
        self.rows = [record.row(metrics) for record, metrics in zip(records, columns, strict=True)]
        self._counts = {record.question.id: len(metrics) for record, metrics in zip(records, columns)}
        self.aggregates = {f"{name}/{key}": value for name, suite in suites.items()
                           for key, value in suite.aggregate(per_suite[name]).items()}
        self.artifacts = {filename: text for name, suite in suites.items()
                          for filename, text in suite.artifacts(records, per_suite[name]).items()}

    def spans(self, record: QuestionRecord, clock: StageClock) -> list[SpanRecord]:
        start, end = clock.window_of(record.question.id)
        return [SpanRecord(name=self.name, kind="scoring", start=start, end=end,
                           outputs={"metrics": self._counts.get(record.question.id, 0)},
                           attributes={"suites": list(self.suites)})]
