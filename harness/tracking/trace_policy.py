"""Which questions of a job get an MLflow trace when it is logged, and what a trace holds.

``tracking.traces``:

* ``auto`` (the default): every question while the job has at most ``traces_max`` of them; above
  that, a seeded sample of ``traces_max`` questions plus, up to ``traces_max`` more, the questions a
  person opens first: the failures (a failed answer or judgement), the ``traces_worst`` worst on the
  primary metric, then the answered questions a judge replied to. The rest get theirs on demand
  (``harness traces RUN --all``, or ``--questions ID ...``).
* ``all``, ``answered`` (the questions the generator answered), ``none``.

The per-question table always holds every question: this only decides which become traces eagerly.
Pure functions of the rows and the config (no MLflow): the tracking layer calls them.

Example:
    >>> policy = TracePolicy(traces="auto", traces_max=2, seed=0)
    >>> rows = [{"question_id": f"q{i}", "retrieval/mrr": i / 10} for i in range(5)]
    >>> len(policy.select(rows, ["retrieval/mrr"])) <= 4
    True
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from harness.config.schemas.choices import Traces


@dataclass(frozen=True)
class TracePolicy:
    """``tracking.traces`` and the numbers of its ``auto`` mode (``tracking.traces_*``).

    Attributes:
        traces: ``auto``, ``all``, ``answered`` or ``none``.
        traces_max: ``auto``: a job with more questions traces a seeded sample of this many (plus the
            questions a person opens first, up to as many again).
        worst: ``auto``: how many of the worst questions on the primary metric are among those.
        seed: the sample's seed (the config's ``seed``).
        primary: the metric whose worst questions are traced; None: the first of ``metrics`` a row has.
        lower_is_better: the primary metric's direction.
    """

    traces: str = "all"
    traces_max: int = 1000
    worst: int = 100
    seed: int = 0
    primary: str | None = None
    lower_is_better: bool = False

    def select(self, rows: list[dict[str, Any]], metrics: list[str] | None = None) -> list[dict[str, Any]]:
        """The rows whose questions get a trace now, in the table's order; ``metrics`` the reported
        metrics (the primary one is the first a row has, unless ``primary`` names it)."""
        mode = Traces(self.traces)
        if mode == Traces.none:
            return []
        if mode == Traces.answered:
            return [row for row in rows if "answer" in row]
        if mode == Traces.all or len(rows) <= self.traces_max:
            return list(rows)
        chosen = set(random.Random(self.seed).sample(range(len(rows)), self.traces_max))
        extra: list[int] = []
        for picks in (self._failures(rows), self._worst(rows, metrics or []), self._judged(rows)):
            extra.extend(i for i in picks if i not in chosen and i not in extra)
        chosen.update(extra[:self.traces_max])
        return [row for i, row in enumerate(rows) if i in chosen]

    def _failures(self, rows: list[dict[str, Any]]) -> list[int]:
        return [i for i, row in enumerate(rows) if failed(row)]

    def _worst(self, rows: list[dict[str, Any]], metrics: list[str]) -> list[int]:
        name = self.primary or next((m for m in metrics if any(row.get(m) is not None for row in rows)), None)
        if name is None or self.worst <= 0:
            return []
        scored = [(row[name], i) for i, row in enumerate(rows) if isinstance(row.get(name), (int, float))]
        scored.sort(reverse=self.lower_is_better)
        return [i for _, i in scored[:self.worst]]

    def _judged(self, rows: list[dict[str, Any]]) -> list[int]:
        return [i for i, row in enumerate(rows) if "answer" in row and any(
            judgement.get("raw") for judgement in (row.get("judgements") or {}).values())]


def failed(row: dict[str, Any]) -> bool:
    """Whether a question's answer or one of its judgements failed (its row says why)."""
    return bool(row.get("answer_error") or row.get("no_context_answer_error") or any(
        judgement.get("missing") for judgement in (row.get("judgements") or {}).values()))



@dataclass(frozen=True)
class TraceContent:
    """What a trace holds beyond its spans (``tracking.trace_assessments``, ``tracking.trace_passage_chars``).

    Attributes:
        assessments: the metrics that become Feedback assessments (besides every judge's score, with
            its reply as rationale); every other per-question value goes into one attribute of the
            root span. None: every metric a Feedback.
        passage_chars: a passage's text in a RETRIEVER or RERANKER span is cut at this many
            characters (the full text stays in the run's records); 0: not cut.
    """

    assessments: tuple[str, ...] | None = None
    passage_chars: int = 0
