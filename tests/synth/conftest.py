"""A local OpenAI-compatible server that writes and answers questions about the tiny corpus, and the
overrides that point ``harness synth`` at it and at the tiny dataset."""

from __future__ import annotations

import json
import re

import pytest
from werkzeug import Request

from tests.conftest import TINY_DATASET_OVERRIDES
from tests.generators.test_openai_chat import stream_response

KEY_ENV = "HARNESS_TEST_SYNTH_KEY"
PATH = "/v1/chat/completions"
# The first number and the word after it: what the fake model asks about and answers.
FACT = re.compile(r"\d[\d,.]*\s[a-z]+")


def fake_model(http_request: Request) -> str:
    """The model's reply to a synth prompt (conf/synth/llm.yaml) or an answer prompt (conf/prompt/default.yaml):
    a question about the passage's first number, that number as the answer, nothing without a passage."""
    content = json.loads(http_request.get_data())["messages"][-1]["content"]
    if content.startswith("Text 1:"):
        first, second = content.split("\n\nWrite one question")[0].split("Text 2:")
        return (f"Question: What figures go with {opening(first)} and {opening(second)}?\n"
                f"Answer: {FACT.search(first).group()} and {FACT.search(second).group()}")
    if content.startswith("Text:"):
        passage = content.split("\n\nWrite one question")[0]
        return f"Question: What figure goes with {opening(passage)}?\nAnswer: {FACT.search(passage).group()}"
    if content.startswith("Context:"):
        return FACT.search(content.split("Using only the context above")[0]).group()
    return "I do not know."


def opening(text: str) -> str:
    """The first four words of a prompt's passage (after its ``Text:`` label), lower case."""
    return " ".join(re.sub(r"[^\w\s]", " ", text.split("\n", 1)[1]).split()[:4]).lower()


@pytest.fixture
def llm_server(httpserver, monkeypatch):
    """Serves :func:`fake_model`; returns the overrides that make it the generator."""
    for proxy in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
        monkeypatch.delenv(proxy, raising=False)
    monkeypatch.setenv(KEY_ENV, "sk-synth-test")
    httpserver.expect_request(PATH, method="POST").respond_with_handler(lambda r: stream_response([fake_model(r)]))
    return ["generator=openai", f"generator.base_url={httpserver.url_for('/v1')}", "generator.model=fake",
            f"generator.api_key_env={KEY_ENV}", "generator.max_retries=0"]


@pytest.fixture
def settings(tmp_path):
    """A cache in tmp_path, whole documents as passages, and no duplicates filter (it loads the
    encoder; tests/synth/test_filters.py runs it)."""
    return [f"cache.dir={tmp_path / 'cache'}", "chunker=none", "synth.filters.duplicates.enabled=false"]


@pytest.fixture
def tiny(settings):
    """:func:`settings` on the tiny corpus."""
    return [*TINY_DATASET_OVERRIDES, *settings]
