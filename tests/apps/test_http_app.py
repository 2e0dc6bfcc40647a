"""app=http against real servers on loopback ports: the example app's endpoint, and pytest-httpserver
for retries and every way a reply can fail."""

from __future__ import annotations

import json
import threading
import time

import pytest
from werkzeug import Response

from harness.apps.http import HttpApp
from harness.cache import DiskCache
from harness.data.records import Question

QUESTION = Question(id="q2", text="Which river flows through Berlin?")


@pytest.fixture
def example_server(example_on_path):
    import http_app

    server = http_app.server(port=0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/rag"
    server.shutdown()
    server.server_close()


def test_the_example_endpoint_answers_with_its_contexts(example_server, tmp_path):
    app = HttpApp(example_server, reply={"answer": "answer", "contexts": "contexts"},
                  request={"question": "{question}"}, params={"top_k": 1})
    (reply,) = app.answer_all([QUESTION], DiskCache(tmp_path))
    assert reply.error is None and reply.answer == "The Spree flows through it."
    assert [(c.doc_id, c.score > 0) for c in reply.contexts] == [("germany", True)]


def test_a_server_error_is_retried_then_answered(httpserver, tmp_path):
    httpserver.expect_ordered_request("/rag", method="POST").respond_with_data("busy", status=503)
    httpserver.expect_ordered_request("/rag", method="POST", json={"q": "Why?", "id": "q1", "top_k": 3}) \
        .respond_with_json({"data": {"text": "Because.", "docs": [{"content": "A", "id": "d1"}]},
                            "usage": {"in": 7, "out": 2}})
    app = HttpApp(httpserver.url_for("/rag"), request={"q": "{question}", "id": "{id}"}, params={"top_k": 3},
                  reply={"answer": "data.text", "contexts": "data.docs", "input_tokens": "usage.in",
                         "output_tokens": "usage.out"}, retry_wait_seconds=0.01)
    (reply,) = app.answer_all([Question(id="q1", text="Why?")], DiskCache(tmp_path))
    assert (reply.error, reply.answer, reply.input_tokens, reply.output_tokens) == (None, "Because.", 7, 2)
    assert reply.contexts[0].doc_id == "d1" and len(httpserver.log) == 2


@pytest.mark.parametrize("respond, reason", [
    (lambda: Response("bad request", status=400), "HttpError: HTTP 400 from http://localhost"),
    (lambda: Response("down", status=500), "HttpError: HTTP 500 from http://localhost"),
    (lambda: Response("<html>", status=200), "malformed reply: the reply is not JSON"),
    (lambda: Response(json.dumps({"text": "x"}), status=200, content_type="application/json"),
     "malformed reply: no 'answer' (app.reply.answer) in the reply {\"text\": \"x\"}"),
])
def test_a_failed_reply_keeps_its_reason(httpserver, tmp_path, respond, reason):
    httpserver.expect_request("/rag").respond_with_handler(lambda request: respond())
    app = HttpApp(httpserver.url_for("/rag"), reply={"answer": "answer"}, max_retries=1, retry_wait_seconds=0.01)
    (reply,) = app.answer_all([QUESTION], DiskCache(tmp_path))
    assert reply.error.startswith(reason) and reply.answer == ""
    assert len(httpserver.log) == (2 if "500" in reason else 1)  # a 4xx or a bad reply is not retried


def test_a_time_out_is_a_failure(httpserver, tmp_path):
    httpserver.expect_request("/rag").respond_with_handler(lambda request: time.sleep(0.5) or Response("{}"))
    app = HttpApp(httpserver.url_for("/rag"), reply={"answer": "answer"}, timeout=0.1, max_retries=0)
    (reply,) = app.answer_all([QUESTION], DiskCache(tmp_path))
    assert "timed out" in reply.error


def test_a_refused_connection_is_a_failure(tmp_path):
    app = HttpApp("http://127.0.0.1:9/rag", reply={"answer": "answer"}, max_retries=0)
    (reply,) = app.answer_all([QUESTION], DiskCache(tmp_path))
    assert reply.error.startswith("URLError:") and "refused" in reply.error


def test_bad_options_are_refused():
    with pytest.raises(ValueError, match="app.url must be an http"):
        HttpApp("ftp://x", reply={"answer": "a"})
    with pytest.raises(ValueError, match="app.reply.answer must name"):
        HttpApp("http://x", reply={"answer": None})
