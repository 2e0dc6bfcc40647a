"""The synthesis loop: passages in a seeded order, written in batches, filtered, until N are kept.

Multi-hop questions (a writer's ``multi_hop`` share) are written first, from passage pairs that
retrieve each other; single-passage questions fill the rest, so a corpus with too few pairs still
gives N questions. Each passage group is written from once: a corpus that runs out of passages
ends the set short, and the outcome says why.
"""

from __future__ import annotations

import logging
import random
from collections import Counter
from dataclasses import dataclass, field
from harness.failures import FailureTally
from harness.synth.pairs import mutual_pairs
from harness.synth.records import Scored, Tools
from harness.synth.settings import SynthSettings

log = logging.getLogger(__name__)


@dataclass
class FilterTally:
    """What one filter saw: scored, removed (scored and failed it), failed (could not score)."""

    scored: int = 0
    removed: int = 0
    failed: int = 0
    reasons: Counter = field(default_factory=Counter)


@dataclass
class Outcome:
    """The kept questions in order, what happened to the others, and why the set is short (if it is)."""

    asked: int
    kept: list[Scored]
    passages: int
    pairs: int | None = None
    tried: int = 0
    no_question: Counter = field(default_factory=Counter)
    writes: FailureTally | None = None
    filters: dict[str, FilterTally] = field(default_factory=dict)
    stopped: str | None = None

    @property
    def complete(self) -> bool:
        return len(self.kept) >= self.asked

    def shortfall(self) -> str:
        """Why fewer than asked were made, in one line."""
        why = self.stopped or (f"every passage group was tried ({self.tried} of {self.passages} passages"
                               + (f" and {self.pairs} pairs" if self.pairs is not None else "") + ")")
        removed = ", ".join(f"{name} removed {t.removed}" + (f" ({t.failed} failed)" if t.failed else "")
                            for name, t in self.filters.items())
        lost = f"; {sum(self.no_question.values())} passages held nothing to ask" if self.no_question else ""
        failed = f"; {self.writes.failed} writes failed" if self.writes and self.writes.failed else ""
        return f"made {len(self.kept)} of {self.asked} questions: {why}{lost}{failed}" + (f"; {removed}" if removed else "")


class Synthesizer:
    """Writes and filters questions from ``tools.chunks`` with ``settings``."""

    def __init__(self, settings: SynthSettings, tools: Tools) -> None:
        if not tools.chunks:
            raise ValueError("the corpus has no passages: the dataset's documents chunked to nothing")
        self.settings, self.tools = settings, tools
        self.outcome: Outcome | None = None  # the outcome being built (what was kept if a call raises)
        for candidate_filter in settings.enabled_filters():
            candidate_filter.check(tools)

    def run(self, n: int) -> Outcome:
        """Up to ``n`` questions that pass every enabled filter (fewer only when the corpus runs out
        or too many calls fail: :attr:`Outcome.stopped`)."""
        return self._run(n, apply=True)

    def pool(self, n: int) -> Outcome:
        """Up to ``n`` written questions, every filter's scores on each and none applied (duplicates
        aside: they depend on the set chosen), so that sets with any filters can be chosen from them
        afterwards (``benchmarks/synth_validity.py``)."""
        return self._run(n, apply=False)

    def _run(self, n: int, apply: bool) -> Outcome:
        if n < 1:
            raise ValueError(f"the number of questions must be >= 1, got {n}")
        settings, chunks = self.settings, self.tools.chunks
        singles = [(chunk,) for chunk in chunks]
        random.Random(settings.seed).shuffle(singles)
        outcome = Outcome(asked=n, kept=[], passages=len(chunks),
                          writes=FailureTally("synth writer", settings.max_failed_fraction),
                          filters={f.name: FilterTally() for f in settings.enabled_filters()})
        self.outcome = outcome
        if apply and settings.duplicates is not None and settings.duplicates.enabled:
            outcome.filters[settings.duplicates.name] = FilterTally()
        streams = [(singles, n)]
        hops = round(n * settings.writer.multi_hop)
        if hops:
            retriever = self.tools.require_retriever("synth.writer.multi_hop")
            pairs = [(chunks[a], chunks[b]) for a, b in mutual_pairs(chunks, retriever, settings.writer.pair_top_k)]
            random.Random(settings.seed).shuffle(pairs)
            outcome.pairs = len(pairs)
            streams = [(pairs, hops), (singles, None)]  # singles fill whatever the pairs could not
        kept_vectors = None
        for groups, quota in streams:
            goal = n if quota is None else len(outcome.kept) + quota
            start = 0
            while start < len(groups) and len(outcome.kept) < goal and not outcome.stopped:
                # No more passages than questions still wanted: the set is the same whatever the batches.
                batch = groups[start:start + min(settings.batch_size, goal - len(outcome.kept))]
                start += len(batch)
                kept_vectors = self._batch(batch, outcome, goal, apply, kept_vectors)
        return outcome

    def _batch(self, batch, outcome: Outcome, goal: int, apply: bool, kept_vectors):
        settings, tally = self.settings, outcome.writes
        outcome.tried += len(batch)
        alive = []
        for written in settings.writer.write(batch, self.tools, settings.seed):
            if written.failed:
                tally.add(written.reason)
            elif written.candidate is None:
                outcome.no_question[written.reason] += 1
            else:
                tally.add(None)
                alive.append(Scored(written.candidate))
        for candidate_filter in settings.enabled_filters():
            scores = candidate_filter.score([s.candidate for s in alive], self.tools)
            counts = outcome.filters[candidate_filter.name]
            for scored, score in zip(alive, scores, strict=True):
                scored.scores[candidate_filter.name] = score
                counts.scored += 1
                if "error" in score:
                    counts.failed += 1
                    counts.reasons[score["error"]] += 1
                counts.removed += not score["passed"] and "error" not in score
            self._check_failures(candidate_filter.name, counts, outcome)
            if apply:
                alive = [s for s in alive if s.scores[candidate_filter.name]["passed"]]
        duplicates = settings.duplicates
        if apply and duplicates is not None and duplicates.enabled and alive:
            scores, kept_vectors = duplicates.screen(duplicates.vectors([s.candidate.question for s in alive]),
                                                     kept_vectors)
            counts = outcome.filters[duplicates.name]
            for scored, score in zip(alive, scores, strict=True):
                scored.scores[duplicates.name] = score
                counts.scored += 1
                counts.removed += not score["passed"]
            alive = [s for s in alive if s.scores[duplicates.name]["passed"]]
        outcome.kept += alive[:goal - len(outcome.kept)]
        verdict = tally.verdict()
        if verdict and not outcome.stopped:
            outcome.stopped = f"stopped: {verdict}"
        log.info("synth: %d of %d questions after %d passage groups", len(outcome.kept), outcome.asked, outcome.tried)
        return kept_vectors

    def _check_failures(self, name: str, counts: FilterTally, outcome: Outcome) -> None:
        if counts.failed and (counts.failed == counts.scored
                              or counts.failed / counts.scored > self.settings.max_failed_fraction):
            outcome.stopped = outcome.stopped or (
                f"stopped: filter {name}: {counts.failed} of {counts.scored} generations failed "
                f"(max_failed_fraction {self.settings.max_failed_fraction:g}); most common reason: "
                f"{counts.reasons.most_common(1)[0][0]}")

