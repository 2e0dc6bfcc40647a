"""An app's contexts read from the MLflow trace it writes itself (``app=python_traced``).

An app that traces its own work (its own ``mlflow.trace`` spans, or LangChain and LlamaIndex
autologging) need not return its contexts: they are the documents of the RETRIEVER spans of the
trace its call wrote, in span order. Its traces go to the job's tracking store and experiment,
each tagged with the question's id (``harness.question_id``) and linked from the question's own trace
(the app span's ``app_trace_id``).
"""

from __future__ import annotations

import logging
import random
import threading
import time
from collections.abc import Callable
from typing import Any

from harness.apps.replies import TracedReply
from harness.tracking.mlflow.store import one_line, shown

log = logging.getLogger(__name__)
QUESTION_TAG = "harness.question_id"
_SETUP = threading.Lock()


class TraceContexts:
    """Args:
        tracking_uri: the store the app's traces are written to (the job's).
        experiment_name: their experiment (the job's).
    """

    def __init__(self, tracking_uri: str, experiment_name: str) -> None:
        self.tracking_uri, self.experiment_name = tracking_uri, experiment_name
        self._ready = False

    def __repr__(self) -> str:
        return f"TraceContexts(tracking_uri={shown(self.tracking_uri)!r}, experiment_name={self.experiment_name!r})"

    def capture(self, call: Callable[[], Any], question_id: str) -> TracedReply:
        """Runs ``call`` (on the calling thread) and reads the trace it wrote."""
        import mlflow

        self._setup(mlflow)
        # MLflow (OpenTelemetry) draws trace ids from Python's global random generator, which each job
        # seeds with its config's seed: two jobs' app traces would get the same ids and overwrite each
        # other. The harness's own sampling uses generators of its own, so the global one is reseeded.
        random.seed()
        before = mlflow.get_last_active_trace_id(thread_local=True)
        start = time.perf_counter()
        reply = call()
        seconds = time.perf_counter() - start
        trace_id = mlflow.get_last_active_trace_id(thread_local=True)
        if trace_id is None or trace_id == before:
            return TracedReply(reply=reply, seconds=seconds)
        trace = mlflow.get_trace(trace_id, silent=True, flush=True)
        if trace is None:
            return TracedReply(reply=reply, trace_id=trace_id, seconds=seconds)
        documents = [document for span in trace.search_spans(span_type="RETRIEVER")
                     for document in (span.outputs if isinstance(span.outputs, list) else [])]
        try:
            mlflow.MlflowClient(self.tracking_uri).set_trace_tag(trace_id, QUESTION_TAG, question_id)
        except Exception as err:  # noqa: BLE001 - the link is a convenience; the contexts were read
            log.warning("the app's trace %s was not tagged with its question: %s", trace_id, one_line(err))
        return TracedReply(reply=reply, documents=documents if trace.search_spans(span_type="RETRIEVER") else None,
                           trace_id=trace_id, seconds=seconds)

    def _setup(self, mlflow) -> None:
        """The app's traces go to the job's store and experiment: MLflow's tracing writes where its
        process-wide tracking URI and experiment point."""
        with _SETUP:
            if not self._ready:
                mlflow.set_tracking_uri(self.tracking_uri)
                mlflow.set_experiment(self.experiment_name)
                self._ready = True
