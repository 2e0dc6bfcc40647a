"""Writing a job's traces into an MLflow store: each question once, a job's spans in a few calls,
in a process of their own while the sweep's next job computes.

Per job: one look-up of the traces its run already has (a race's later round, a resumed or synced
job: those questions are skipped, a trace left without spans gets them); then, per batch of
questions, one ``start_trace`` per question (its metadata, tags and every assessment in one store
session, MLflow's only path that writes a trace's assessments together) and one ``log_spans`` for
the batch's spans (one session, or one OTLP request to a tracking server).

Measured (issue 35): ``mlflow.start_span`` costs about 90 ms a trace into SQLite and
``mlflow.genai.evaluate`` 1.9 s a row; ``benchmarks/tracing.py`` measures this writer. Its cost is
MLflow's ORM writing each assessment as a row (about 2 s of CPU for a demo job's 86 traces and 2,600
assessments), so in a sweep it runs in a second process started by the sweep's own process (the
next job computes meanwhile, on another core; a harness launcher's worker hands its jobs' traces
over with their answers); a thread would hold the interpreter's lock for most of it.

A failure never stops a sweep and never unlogs its run: it is kept (:meth:`TraceWriter.flush`
returns it as a line), and ``harness sync`` writes the missing traces later.
"""

from __future__ import annotations

import atexit
import logging
import multiprocessing
import os
import threading
import time
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass
from typing import Any, Callable

from harness.config.secrets import redact_text
from harness.log_filters import FILE_ONLY
from harness.results.records import RunResult
from harness.results.stage_records import StageRecords
from harness.tracking.sweep import handoff
from harness.tracking.sweep.interruption import OPEN
from harness.tracking.trace_policy import TraceContent
from harness.tracking.mlflow.traces import QUESTION_TAG, BuiltTrace, build_trace
from harness.tracking.mlflow.store import one_line, quiet_database_errors, shown

log = logging.getLogger(__name__)

# Questions per batch: a batch's spans go in one call (an OTLP request of a few MB at most).
BATCH = 100
_PAGE = 500
# How often the writer process looks whether the sweep's process still lives.
_PARENT_POLL_S = 0.5


@dataclass
class TraceJob:
    """A job's traces to write: its run, its rows (already selected) and stage records."""

    experiment_id: str
    run_id: str
    name: str
    rows: list[dict[str, Any]]
    stages: StageRecords | None
    # How a call is tried again while a tracking server does not answer (the tracker's); None: once.
    retry: Callable[[Callable[[], Any], str], Any] | None = None
    # None of these questions has a trace in the run yet (a race's round, its new questions): no look-up.
    fresh: bool = False
    # What the traces hold beyond their spans (assessed metrics, passage length).
    content: TraceContent = TraceContent()


class TraceWriter:
    """Writes traces into the store at ``tracking_uri``; one per store and process (:func:`writer_for`)."""

    def __init__(self, tracking_uri: str) -> None:
        self.tracking_uri = tracking_uri
        self._store = None
        self._pool: ProcessPoolExecutor | None = None
        self._pending: list[tuple[str, Future]] = []
        self._failures: list[str] = []

    @property
    def store(self):
        if self._store is None:
            from harness.tracking.mlflow.compat import tracing_store

            quiet_database_errors()
            self._store = tracing_store(self.tracking_uri)
        return self._store

    def write(self, job: TraceJob) -> int:
        """Writes the job's traces its run lacks, here and now; returns how many. A failure is kept, not raised."""
        retry = job.retry or (lambda action, what: action())
        try:
            return retry(lambda: self._write(job), f"logging {job.name}'s traces")
        except Exception as err:  # noqa: BLE001 - the run is logged; its traces wait for `harness sync`
            log.info("traces of %s not written", job.name, exc_info=True, extra=FILE_ONLY)
            self._fail(job.name, f"the store {shown(self.tracking_uri)} refused them: {one_line(err)}")
            return 0

    def submit(self, job: TraceJob, background_from: int = 0) -> None:
        """Writes the job's traces in the writer process (jobs in the order submitted). A job with
        fewer than ``background_from`` traces, while no writer process runs yet, is written here and
        now: starting one (a new interpreter importing MLflow and opening the store) costs about
        4 CPU s (a 2-job sweep of 4 questions: 8.8 CPU s with it, 4.7 without), what ~90 traces
        cost to write."""
        if self._pool is None and len(job.rows) < background_from:
            self.write(job)
            return
        try:
            self._pending.append((job.name, self._process().submit(_write_elsewhere, self.tracking_uri, job)))
        except Exception:  # noqa: BLE001 - no second process here (a sandbox, a broken pool): write them now
            log.info("no trace writer process; writing %s's traces here", job.name, exc_info=True, extra=FILE_ONLY)
            self.write(job)

    def start(self) -> None:
        """Starts the writer process now, opening the store there (the jobs it will write come later)."""
        try:
            self._process().submit(_open_store, self.tracking_uri)
        except Exception:  # noqa: BLE001 - no second process here: the first job's submit says so
            log.info("the trace writer process could not start early", exc_info=True, extra=FILE_ONLY)

    def _process(self) -> ProcessPoolExecutor:
        if self._pool is None:
            # spawn: a fresh interpreter, not a fork of one holding models and threads
            self._pool = ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn"),
                                             initializer=_end_with, initargs=(os.getpid(),))
        return self._pool

    def flush(self) -> list[str]:
        """Waits for the traces submitted so far; returns (and forgets) a line per job whose traces failed."""
        pending, self._pending = self._pending, []
        for name, future in pending:
            try:
                self._failures.extend(future.result())
            except Exception as err:  # noqa: BLE001 - the writer process itself failed
                self._fail(name, f"the trace writer failed: {one_line(err)}")
        failures, self._failures = self._failures, []
        return failures

    def _fail(self, name: str, reason: str) -> None:
        line = redact_text(f"NOT LOGGED the traces of {name}: {reason}")
        log.warning("%s", line)
        self._failures.append(line)

    def _write(self, job: TraceJob) -> int:
        logged = {} if job.fresh else self._logged(job.experiment_id, job.run_id)
        todo = [row for row in job.rows if logged.get(row["question_id"]) is not True]
        for start in range(0, len(todo), BATCH):
            built = [build_trace(row, job.stages, job.run_id, job.experiment_id, job.name, job.content)
                     for row in todo[start:start + BATCH]]
            self._write_batch(job.experiment_id, built, logged)
        return len(todo)

    def _write_batch(self, experiment_id: str, built: list[BuiltTrace], logged: dict[str, bool]) -> None:
        for trace in built:
            if trace.question_id not in logged:  # else it has its info, only its spans are missing
                self.store.start_trace(trace.info)
        try:
            self.store.log_spans(experiment_id, [span for trace in built for span in trace.spans])
        except NotImplementedError as err:  # a tracking server older than MLflow 3.4, a file store
            raise RuntimeError(f"it cannot store spans ({err})") from None

    def _logged(self, experiment_id: str, run_id: str) -> dict[str, bool]:
        """Question id -> whether its trace has its spans, for the traces the run has."""
        from mlflow.tracing.constant import SpansLocation, TraceTagKey

        found: dict[str, bool] = {}
        token = None
        while True:
            infos, token = self.store.search_traces(locations=[experiment_id], filter_string=f"attribute.run_id = "
                                                    f"'{run_id}'", max_results=_PAGE, page_token=token)
            for info in infos:
                if QUESTION_TAG in info.tags:
                    spans = info.tags.get(TraceTagKey.SPANS_LOCATION) == SpansLocation.TRACKING_STORE.value
                    found[info.tags[QUESTION_TAG]] = spans
            if not token:
                return found


def _end_with(parent: int) -> None:
    """In the writer process: end when the sweep's process has ended. A sweep stopped by a signal
    (or killed) leaves without waiting for its writer; an orphaned writer would hold the console's
    pipes open and live on. ``harness sync`` writes the traces a run lacks."""

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(_PARENT_POLL_S)
        os._exit(0)

    threading.Thread(target=watch, name="harness-trace-writer-parent", daemon=True).start()


def _open_store(tracking_uri: str) -> None:
    """The writer process's first task when started early: MLflow's store opened, ready for a job.
    A store that cannot be opened is the first job's failure, with its reason."""
    try:
        writer_for(tracking_uri).store
    except Exception:  # noqa: BLE001
        log.info("the trace store could not be opened early", exc_info=True, extra=FILE_ONLY)


def _write_elsewhere(tracking_uri: str, job: TraceJob) -> list[str]:
    """The writer process's work for one job: its failure lines."""
    writer = writer_for(tracking_uri)
    writer.write(job)
    return writer.flush()


def log_traces(tracking_uri: str, rows: list[dict[str, Any]], content: TraceContent, experiment_id: str, run_id: str,
               result: RunResult, name: str, retry: Callable[[Callable[[], Any], str], Any], background_from: int = 0,
               fresh: bool = False) -> int | None:
    """Writes the traces of ``rows`` (the job's questions that get one now) its run lacks: in the
    background in the sweep's process (the next job computes meanwhile; :func:`pending_failures`
    waits) when the job has at least ``background_from`` of them or the writer process already
    runs. A harness launcher's worker hands them to the sweep's process with the job's answer
    (:mod:`~harness.tracking.sweep.handoff`). Else they are written before this returns (a single
    run, ``harness sync``, a Ray worker). Returns how many it wrote, None where they were queued."""
    if not rows:
        return 0
    job = TraceJob(experiment_id, run_id, name, rows, result.stages, retry, fresh, content)
    if OPEN.sweep_id is not None:
        writer_for(tracking_uri).submit(job, background_from)
        return None
    if handoff.leave(submit_traces, tracking_uri, job, background_from):
        return None
    return writer_for(tracking_uri).write(job)


def submit_traces(tracking_uri: str, job: TraceJob, background_from: int) -> None:
    """In the sweep's process: the traces a harness launcher's worker handed over with its job's
    answer, written as the sweep's own jobs' are (:meth:`TraceWriter.submit`)."""
    writer_for(tracking_uri).submit(job, background_from)


_WRITERS: dict[str, TraceWriter] = {}


def writer_for(tracking_uri: str) -> TraceWriter:
    """This process's writer into the store (shared by the trackers a sweep instantiates)."""
    if tracking_uri not in _WRITERS:
        _WRITERS[tracking_uri] = TraceWriter(tracking_uri)
    return _WRITERS[tracking_uri]


def pending_failures(tracking_uri: str) -> list[str]:
    """Waits for the store's background writes; the failure lines since the last call."""
    writer = _WRITERS.get(tracking_uri)
    return writer.flush() if writer is not None else []


@atexit.register
def _drain() -> None:
    """A process that ends with traces still queued (a Python API caller that never flushed) writes them."""
    for writer in list(_WRITERS.values()):
        for line in writer.flush():
            print(line)
