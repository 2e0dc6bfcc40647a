"""The app stage: your application answers every question in place of search, rerank and generate.

Each reply becomes the question's record as the harness's own stages would leave it: its contexts
the ranked chunks (:mod:`harness.apps.contexts`), its answer the with-context generation (tokens,
cost and latency where the app reports them; latency always). A failed call is a failed generation
with its reason; by ``app.on_failure`` it scores as a miss on every retrieval and answer metric
(``miss``: no context, no answer) or on none (``exclude``). A run whose contexts matched no
document says so (:meth:`harness.apps.contexts.ContextPlacer.report`) on the console and in the
run's ``info["warnings"]``.
"""

from __future__ import annotations

import logging

from harness.apps.base import App
from harness.apps.contexts import ContextPlacer
from harness.apps.replies import AppReply
from harness.generators.base import CONTEXTS_UNKNOWN, FAILED_AS_MISS, NO_RANKING, REPORTED_COST, Generation
from harness.results.records import QuestionRecord
from harness.results.stage_records import SpanRecord
from harness.stages.retrieval import hits_of
from harness.stages.stage import PipelineState, Stage, StageClock

APP_TRACE = "app_trace_id"  # Generation.extra: the MLflow trace the app wrote for the question
log = logging.getLogger(__name__)


class AppStage(Stage):
    """Args:
        app: the configured app.
        passage_overlap: the share of a context's words a document must hold for a context given
            without an id to count as that document's (when no chunk has the same text).
    """

    name = "app"

    def __init__(self, app: App | None, passage_overlap: float = 0.8) -> None:
        self.app, self.passage_overlap = app, passage_overlap

    @property
    def enabled(self) -> bool:
        return self.app is not None and self.app.enabled

    def run(self, state: PipelineState, clock: StageClock) -> None:
        questions = list(state.dataset.questions)
        replies = self.app.answer_all(questions, state.cache, lambda qid, start, end: clock.add([qid], start, end))
        placer = ContextPlacer(state.dataset.documents, state.chunks, self.passage_overlap)
        top_k = self.app.top_k or max([len(reply.contexts or []) for reply in replies] + [1])
        # a failed question misses every retrieval metric only where the app's replies have contexts
        ranked = any(reply.contexts is not None for reply in replies if reply.error is None)
        miss = self.app.on_failure == "miss"
        state.records = []
        for question, reply in zip(questions, replies):
            contexts = (reply.contexts or [])[:top_k]
            chunks = [placer.chunk(context) for context in contexts]
            # the app's own scores where it gave them all, else its order (1, 1/2, 1/3...)
            scores = ([c.score for c in contexts] if all(c.score is not None for c in contexts)
                      else [1.0 / rank for rank in range(1, len(contexts) + 1)])
            record = QuestionRecord(question=question, chunks=chunks, scores=scores, top_k=top_k)
            record.generation = _generation(reply, miss, ranked)
            state.records.append(record)
        state.chunks = [*state.chunks, *placer.added.values()]
        warning = placer.report()
        if warning is not None:
            log.warning("%s: %s", self.app.name, warning)
            state.warnings.append(f"app: {warning}")
        state.figures["app/matched_contexts"] = float(placer.matched)
        state.figures["app/unmatched_contexts"] = float(placer.placed - placer.matched)
        state.tallies.append(self.app.tally)
        state.figures["app/cached_replies"] = float(sum(reply.cached for reply in replies))

    def spans(self, record: QuestionRecord, clock: StageClock) -> list[SpanRecord]:
        start, end = clock.window_of(record.question.id)
        generation = record.generation
        usage = {key: getattr(generation, key) for key in ("input_tokens", "output_tokens")
                 if getattr(generation, key) is not None}
        attributes = {"app": self.app.name, "params": dict(self.app.params), "cached": bool(generation.extra.get("cached")),
                      "latency_seconds": generation.latency_seconds,
                      **({"app_trace_id": generation.extra[APP_TRACE]} if generation.extra.get(APP_TRACE) else {})}
        spans = []
        if not generation.extra.get(NO_RANKING):
            spans.append(SpanRecord(name="app retrieval", kind="retrieval", start=start, end=end,
                                    inputs={"query": record.question.text}, documents=hits_of(record),
                                    attributes={"app": self.app.name, "top_k": record.top_k}))
        spans.append(SpanRecord(name="app answer", kind="generation", start=start, end=end,
                                inputs={"question": record.question.text},
                                outputs=None if generation.failed else generation.text, usage=usage or None,
                                attributes=attributes, error=generation.error))
        return spans


def _generation(reply: AppReply, miss: bool, ranked: bool) -> Generation:
    """The reply as a generation; a failed one, with ``miss``, has no answer, which the answer's EM
    and F1 score as misses, and (``ranked``: the app's replies have contexts) an empty ranking,
    which every retrieval metric scores as a miss."""
    extra: dict = {"cached": True} if reply.cached else {}
    if reply.trace_id is not None:
        extra[APP_TRACE] = reply.trace_id
    if reply.cost_usd is not None:
        extra[REPORTED_COST] = reply.cost_usd
    if reply.contexts is None:
        extra[CONTEXTS_UNKNOWN] = True
    if reply.error is not None and miss:
        extra[FAILED_AS_MISS] = True
    if reply.error is not None and not (miss and ranked) or reply.error is None and reply.contexts is None:
        extra[NO_RANKING] = True
    return Generation(text=reply.answer if reply.error is None else "", error=reply.error,
                      input_tokens=reply.input_tokens, output_tokens=reply.output_tokens,
                      latency_seconds=reply.latency_seconds,
                      contexts=None if reply.contexts is None or reply.error else [c.text for c in reply.contexts],
                      extra=extra)
