"""The judging stage: every configured rubric applied to every applicable item, through the cache.

Runs after answering (``harness.stages.pipeline``). Fills ``QuestionRecord.judgements`` with one
:class:`~harness.judges.judgement.Judgement` per ``"<rubric>/<target>"``. It never raises on a
judge failure: a failed judgement is recorded as missing with its reason (and not cached, so the
next run retries it), and the run goes on.

The cache key holds the judge's fingerprint (backend, model, revision or file hash, decoding
parameters, samples), the rubric's full settings (prompt texts included) and every rendered
value of the item that reaches the judge. Entries are written atomically
(:class:`~harness.cache.DiskCache`), so parallel launcher workers can share the cache.
"""

from __future__ import annotations

import logging
import time
from collections import Counter
from dataclasses import asdict, dataclass, field

from harness.cache import DiskCache, content_key, json_codec
from harness.failures import FailureTally
from harness.log_filters import CONSOLE_ONCE
from harness.judges.base import Judge
from harness.judges.items import JudgeItem, item_for
from harness.judges.judgement import Judgement, combine_samples
from harness.judges.rubrics.base import Rubric
from harness.judges.selfcheck import SelfCheckResult, selfcheck_items, selfcheck_result
from harness.stages.stage import StageClock

log = logging.getLogger(__name__)
NAMESPACE = "judgements"
# Part of every cache key: bump it when Judgement's fields change, so old entries are not reused.
JUDGEMENT_FORMAT = 1
JUDGEMENT_CODEC = json_codec(asdict, lambda row: Judgement(**row))


@dataclass
class Judging:
    """Args:
        judge: the configured judge.
        rubrics: rubric name -> rubric (``conf/rubric/``).
    """

    judge: Judge
    rubrics: dict[str, Rubric]
    tally: FailureTally = field(init=False)

    def __post_init__(self) -> None:
        self.selfchecks: dict[str, SelfCheckResult] = {}  # rubric name -> its self-check this run
        self.tally = FailureTally("judge", self.judge.max_failed_fraction)
        owners: dict[str, str] = {}
        for name, rubric in self.rubrics.items():
            if self.judge.enabled and rubric.asks not in self.judge.answers:
                raise ValueError(f"rubric {name} needs a judge that answers {rubric.asks}; judge "
                                 f"{self.judge.describe()} answers {', '.join(sorted(self.judge.answers))} "
                                 f"(choose rubrics for it with rubric=[...])")
            for target in rubric.applies_to:
                for column in rubric.columns(target):
                    if column in owners:
                        raise ValueError(f"rubrics {owners[column]} and {name} both fill the column "
                                         f"judge/{column}; give one of them another 'column'")
                    owners[column] = name

    def run(self, records: list, cache: DiskCache, population: list | None = None,
            clock: StageClock | None = None) -> dict[str, float]:
        """Judges the records in place; returns the run's judge figures (``judge/cache_hits``...,
        and each rubric's self-check, ``judge/<column>_selfcheck_auc``...).

        Args:
            records: the records to judge.
            cache: the judgement cache.
            population: the dataset's records the self-check samples from (default: ``records``).
            clock: hears when each rubric's batch of questions was judged (label ``<rubric>/<target>``).

        ``judge/judged`` counts the judgements made in this run that have a score, ``judge/failed``
        those the judge failed to make (reasons in ``tally``); ``judge/missing`` every judgement
        without a score, including those of answers that failed upstream. Self-check items are
        not counted.
        """
        counts: Counter[str] = Counter()
        self.tally = FailureTally("judge", self.judge.max_failed_fraction)
        figures: dict[str, float] = {}
        self._fingerprint = None  # computed on first use: it may hash a model file
        for rubric in self.rubrics.values():
            rubric.accuracy_threshold.measured(None)  # an auto threshold is this run's own
        start = time.perf_counter()
        for position, (name, rubric) in enumerate(self.rubrics.items()):
            checked = False
            for target in rubric.applies_to:
                pending: list[tuple[object, JudgeItem, str]] = []
                for record in records:
                    item = item_for(record, target)
                    if item is None:
                        continue
                    if item.missing is None and rubric.not_applicable(item):
                        counts["not_applicable"] += 1
                        continue
                    if item.missing is not None:
                        self._store(record, name, rubric, item, Judgement.missing_because(item.missing))
                        continue
                    if not checked and self.judge.selfcheck.enabled:
                        checked = True  # before the rubric's first real item
                        figures.update(self._selfcheck(name, rubric, population or records, cache, position == 0))
                    key = self._key(rubric, item)
                    found = cache.get(NAMESPACE, key, JUDGEMENT_CODEC) if self.judge.cache == "on" else None
                    if isinstance(found, Judgement):
                        found.cached = True
                        counts["cache_hits"] += 1
                        self.tally.add(None)
                        self._store(record, name, rubric, item, found)
                    else:
                        counts["cache_misses"] += 1
                        pending.append((record, item, key))
                if not pending:
                    continue
                # the judge is named once, in the self-check line (and in the run's params)
                log.info("judging %d items with rubric %s (%s)", len(pending), name, target)
                batch_start = time.time()
                judgements = self._evaluate(name, rubric, [p[1] for p in pending])
                if clock is not None:
                    clock.add([record.question.id for record, _, _ in pending], batch_start, time.time(),
                              f"{name}/{target}")
                for (record, item, key), judgement in zip(pending, judgements):
                    self._put(cache, key, judgement)
                    self._store(record, name, rubric, item, judgement)
                    counts["failed" if judgement.failed else "judged"] += 1
                    self.tally.add(judgement.missing)
        seconds = time.perf_counter() - start
        figures.update(self._thresholds())
        for record in records:
            for judgement in getattr(record, "judgements", {}).values():
                counts["missing"] += judgement.failed
        figures.update({f"judge/{key}": float(counts[key]) for key in ("cache_hits", "cache_misses", "judged",
                                                                       "failed", "missing", "not_applicable")})
        if counts["judged"] + counts["failed"]:
            figures["judge/seconds_per_judged_item"] = seconds / (counts["judged"] + counts["failed"])
        log.info("judge: %d judged, %d failed, %d from the cache, %d missing (%.1f s)", counts["judged"],
                 counts["failed"], counts["cache_hits"], counts["missing"], seconds)
        return figures

    def _key(self, rubric: Rubric, item: JudgeItem, *purpose: str) -> str:
        self._fingerprint = self._fingerprint or self.judge.fingerprint()
        return content_key(NAMESPACE, JUDGEMENT_FORMAT, self._fingerprint, rubric.fingerprint(),
                           rubric.cache_payload(item), *purpose)

    def _put(self, cache: DiskCache, key: str, judgement: Judgement) -> None:
        if not judgement.failed and self.judge.cache != "off":
            cache.put(NAMESPACE, key, judgement, JUDGEMENT_CODEC)

    def _selfcheck(self, name: str, rubric: Rubric, population: list, cache: DiskCache,
                   first: bool) -> dict[str, float]:
        """Scores the rubric's right and wrong self-check items (through the cache) and returns
        its figures; the rubric's verdict is kept in ``self.selfchecks`` for the judgements."""
        settings = self.judge.selfcheck
        right, wrong = selfcheck_items(population, rubric.applies_to[0], "contexts" in rubric.item_placeholders(),
                                       settings)
        items = right + wrong
        # keyed apart from real items, so a run's cache figures count only its own questions
        keys = [self._key(rubric, item, "selfcheck") for item in items]
        found = [cache.get(NAMESPACE, key, JUDGEMENT_CODEC) if self.judge.cache == "on" else None for key in keys]
        todo = [i for i, f in enumerate(found) if not isinstance(f, Judgement)]
        if todo:
            log.info("self-check of %s: %d items on %s", name, len(todo), self.judge.describe())
            for index, judgement in zip(todo, self._evaluate(name, rubric, [items[i] for i in todo])):
                self._put(cache, keys[index], judgement)
                found[index] = judgement
        scores = [None if j.failed else j.score for j in found]
        result = selfcheck_result(scores[:len(right)], scores[len(right):], settings.min_auc)
        self.selfchecks[name] = result
        rubric.accuracy_threshold.measured(result.threshold)
        # Short enough for a 120-column console; the gap and ties are in the run's metrics. Read from
        # the cache, every job of a sweep logs the same line: the console shows it once.
        log.log(logging.WARNING if result.passed is False else logging.INFO,
                "self-check of %s: AUC %s over %d pairs (min %.2f), threshold %s%s", name,
                "n/a" if result.auc is None else f"{result.auc:.3f}", result.n, settings.min_auc,
                "n/a" if result.threshold is None else f"{result.threshold:.4g}",
                ": cannot tell right from wrong answers" if result.passed is False else "",
                extra={CONSOLE_ONCE: not todo})
        figures = result.figures(f"judge/{rubric.column}_selfcheck_")
        if first:
            figures.update(result.figures("judge/selfcheck_"))
        return figures

    def _thresholds(self) -> dict[str, float]:
        """``judge/<column>_threshold`` (the accuracy threshold this run applied) and
        ``judge/<column>_threshold_auto`` (1: measured by this run's self-check) per rubric that
        has an ``_accurate`` column; an ``auto`` threshold the self-check could not measure is
        logged only as missing (its ``_accurate`` values are missing, never 0)."""
        figures: dict[str, float] = {}
        for name, rubric in self.rubrics.items():
            threshold = rubric.accuracy_threshold
            if not threshold.enabled:
                continue
            if threshold.value is None:
                log.warning("rubric %s: accuracy_threshold auto, but %s: its _accurate column is missing", name,
                            "the self-check is off (judge.selfcheck.enabled=false)" if not self.judge.selfcheck.enabled
                            else "its self-check could not measure one")
                continue
            figures[f"judge/{rubric.column}_threshold"] = threshold.value
            figures[f"judge/{rubric.column}_threshold_auto"] = float(threshold.auto)
        return figures

    def _evaluate(self, name: str, rubric: Rubric, items: list[JudgeItem]) -> list[Judgement]:
        """Every sample of every item; an unexpected error makes the batch missing, never the run fail."""
        per_sample: list[list[Judgement]] = []
        for sample in range(self.judge.samples):
            try:
                judgements = rubric.evaluate(self.judge, items, sample)
                if len(judgements) != len(items):
                    raise RuntimeError(f"rubric returned {len(judgements)} judgements for {len(items)} items")
            except Exception as err:
                log.exception("rubric %s failed on %d items; they are recorded as missing", name, len(items))
                judgements = [Judgement.missing_because(f"judge error: {type(err).__name__}: {err}") for _ in items]
            per_sample.append(judgements)
        judge = self.judge.describe()
        combined = []
        for index in range(len(items)):
            judgement = combine_samples([samples[index] for samples in per_sample])
            judgement.detail["judge"] = judge
            combined.append(judgement)
        return combined

    def _store(self, record, name: str, rubric: Rubric, item: JudgeItem, judgement: Judgement) -> None:
        judgement.values = rubric.values(judgement, item)
        if name in self.selfchecks and self.selfchecks[name].passed is not None:
            # read by metrics that reuse the judgements (the context delta)
            judgement.detail["selfcheck_passed"] = self.selfchecks[name].passed
        if rubric.accuracy_threshold.value is not None:  # read by the context delta's threshold: auto
            judgement.detail["accuracy_threshold"] = rubric.accuracy_threshold.value
        record.judgements[f"{name}/{item.target}"] = judgement
