"""Small apps the tests call through app=python (declared as plugins there)."""

from __future__ import annotations

import time

CALLS: list[tuple[str, dict]] = []


def echo(question: str, **params) -> dict:
    CALLS.append((question, params))
    return {"answer": f"you asked: {question}", "contexts": [{"text": "Paris is the capital of France.",
                                                              "doc_id": "france", "score": 2.0}],
            "input_tokens": 12, "output_tokens": 4, "cost_usd": 0.001}


def answer_only(question: str) -> str:
    return "Paris"


def broken(question: str) -> dict:
    if "France" in question:
        raise KeyError("no index loaded")
    return {"answer": 42}


def fails_on_spain(question: str) -> dict:
    """A flaky app: an HTTP error on one question, Paris with its document on the others."""
    if "Spain" in question:
        raise RuntimeError("HTTP 500")
    return {"answer": "Paris", "contexts": [{"text": "Paris is the capital of France.", "doc_id": "france"}]}


def foreign_sources(question: str) -> dict:
    """Contexts named by places that are not the documents folder, with text no document holds."""
    return {"answer": "Paris", "contexts": [{"page_content": "An unrelated passage.",
                                             "metadata": {"source": "s3://bucket/kb/42.pdf"}}]}


def slow(question: str, seconds: float = 5.0) -> str:
    time.sleep(seconds)
    return "late"


def slow_search(question: str, seconds: float) -> dict:
    """Searching takes ``seconds`` a question: a job that is still running while a test acts on it."""
    time.sleep(seconds)
    return {"answer": "See the limits page.", "contexts": [{"text": "Fifty requests per hour.", "doc_id": "limits"}]}


def dies_at(question: str, n: int, at: int = 2) -> str:
    """Kills its own process (as the kernel's OOM killer or ``kill -9`` would) in the job where ``n == at``."""
    if n == at:
        import os
        import signal

        os.kill(os.getpid(), signal.SIGKILL)
    return "Paris"
