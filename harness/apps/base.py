"""The app interface: every question asked once (through the disk cache), concurrently, each
failure kept with its reason.

A reply is cached by the app's fingerprint (what it is, its ``params``, and its code: the source
hash of its module, or a declared ``version``) and the question, as generations are; a failed,
timed-out or malformed reply is never cached and never scored as an empty answer.
"""

from __future__ import annotations

import logging
import time
from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import Any

from harness.apps.replies import AppReply, MalformedReply, TracedReply, read_reply
from harness.cache import DiskCache, content_key, json_codec
from harness.config.secrets import redact_text
from harness.data.records import Question
from harness.failures import ON_FAILURE, FailureTally, check_fraction
from harness.progress import map_with_progress

log = logging.getLogger(__name__)
REPLY_CODEC = json_codec(AppReply.to_json, AppReply.from_json)
NAMESPACE = "app_replies"


class App(ABC):
    """Answers questions with a system of its own.

    Args:
        params: keyword arguments the app gets with each question (swept like any config value).
        version: the app's version, when declared: replies are cached by it instead of by its code.
        concurrency: how many questions are asked at once (apps waiting on I/O).
        timeout: seconds one question may take before it fails.
        max_failed_fraction: the job fails when more than this share of the questions failed.
        top_k: the rank cut-off the app's contexts are scored at (null: the most contexts it
            returned for one question in the run).
        on_failure: what a failed question scores: ``miss`` (every retrieval and answer metric at
            its worst, so a flaky app never looks better than a healthy one) or ``exclude`` (no
            metric: the question drops out of the paired comparison of every run).
    """

    enabled = True

    def __init__(self, params: dict[str, Any] | None = None, version: str | None = None, concurrency: int = 1,
                 timeout: float = 60.0, max_failed_fraction: float = 0.5, top_k: int | None = None,
                 on_failure: str = "miss") -> None:
        if concurrency < 1:
            raise ValueError(f"app.concurrency must be >= 1, got {concurrency}")
        if timeout <= 0:
            raise ValueError(f"app.timeout must be > 0 seconds, got {timeout}")
        if top_k is not None and top_k < 1:
            raise ValueError(f"app.top_k must be >= 1 or null, got {top_k}")
        if on_failure not in ON_FAILURE:
            raise ValueError(f"app.on_failure must be one of {list(ON_FAILURE)}, got {on_failure!r}")
        self.on_failure = on_failure
        self.params = dict(params or {})
        self.version, self.concurrency, self.timeout, self.top_k = version, concurrency, timeout, top_k
        self.max_failed_fraction = check_fraction("app.max_failed_fraction", max_failed_fraction)
        self.tally = FailureTally("app", self.max_failed_fraction)

    @property
    def name(self) -> str:
        """What the app is, in a trace's attributes and the logs."""
        return type(self).__name__

    @abstractmethod
    def call(self, question: Question) -> Any:
        """The app's raw reply to one question (read by :func:`harness.apps.replies.read_reply`)."""

    @abstractmethod
    def code(self) -> dict[str, Any]:
        """What the app is and which code it runs (the cache key's part besides params and version)."""

    def fingerprint(self) -> dict[str, Any]:
        return {**self.code(), "params": self.params, "version": self.version}

    def answer_all(self, questions: list[Question], cache: DiskCache,
                   timed: Callable[[str, float, float], None] | None = None) -> list[AppReply]:
        """One reply per question, in order; ``timed(question_id, start, end)`` hears when each was made."""
        timed = timed or (lambda question_id, start, end: None)
        self.tally = FailureTally("app", self.max_failed_fraction)
        fingerprint = self.fingerprint()
        keys = [content_key(fingerprint, question.id, question.text) for question in questions]
        replies: dict[int, AppReply] = {}
        for index, (question, key) in enumerate(zip(questions, keys)):
            start = time.time()
            found = cache.get(NAMESPACE, key, REPLY_CODEC)
            if found is not None:
                found.cached = True
                replies[index] = found
                timed(question.id, start, time.time())
        missing = [i for i in range(len(questions)) if i not in replies]
        if missing:
            log.info("asking %s %d question(s) (%d from the cache)", self.name, len(missing), len(replies))

            def ask(index: int) -> AppReply:
                start = time.time()
                reply = self.ask(questions[index])
                timed(questions[index].id, start, time.time())
                return reply

            for index, reply in zip(missing, map_with_progress(ask, missing, self.concurrency,
                                                               f"asking {self.name}", unit="question")):
                replies[index] = reply
                if reply.error is None:
                    cache.put(NAMESPACE, keys[index], reply, REPLY_CODEC)
        for index in range(len(questions)):
            self.tally.add(replies[index].error)
        return [replies[i] for i in range(len(questions))]

    def ask(self, question: Question) -> AppReply:
        """One question: the reply read, or a failed reply with the reason; timed always (the app's
        own call, when the reply says how long that took: not the reading of its trace)."""
        start = time.perf_counter()
        raw = None
        try:
            raw = self.call(question)
            reply = read_reply(raw)
        except MalformedReply as err:
            reply = AppReply(error=f"malformed reply: {err}")
        except Exception as err:  # noqa: BLE001 - one failed question never stops the others
            reply = AppReply(error=redact_text(f"{type(err).__name__}: {err}"))
        seconds = getattr(raw, "seconds", None) if isinstance(raw, TracedReply) else None
        reply.latency_seconds = round(seconds if seconds is not None else time.perf_counter() - start, 6)
        return reply


class NoApp(App):
    """``app=none``: the harness's own pipeline (chunker, retriever, reranker, generator)."""

    enabled = False

    def __init__(self) -> None:
        super().__init__()

    def call(self, question: Question) -> Any:
        raise RuntimeError("app=none answers nothing")

    def code(self) -> dict[str, Any]:
        return {"app": "none"}
