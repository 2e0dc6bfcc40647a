"""AnthropicChatGenerator against a real local HTTP server speaking the Messages stream."""

from __future__ import annotations

import json
import time

import pytest
from werkzeug import Request, Response

from harness.generators.anthropic_chat import AnthropicChatGenerator, split_system
from harness.generators.base import GenerationRequest
from harness.generators.api import MissingAPIKeyError

KEY_ENV = "HARNESS_TEST_ANTHROPIC_KEY"
KEY = "sk-ant-test-0123456789abcdef"
PATH = "/v1/messages"


@pytest.fixture(autouse=True)
def api_key(monkeypatch):
    for proxy in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
        monkeypatch.delenv(proxy, raising=False)
    monkeypatch.setenv(KEY_ENV, KEY)


def make(httpserver, **overrides) -> AnthropicChatGenerator:
    args = dict(model="claude-test", api_key_env=KEY_ENV, max_tokens=64, temperature=None, timeout=5.0,
                max_retries=0, base_url=httpserver.url_for("/").rstrip("/"))
    args.update(overrides)
    return AnthropicChatGenerator(**args)


def request(question: str, qid: str = "q1", system: str | None = "Answer briefly.") -> GenerationRequest:
    messages = ([{"role": "system", "content": system}] if system else []) + [{"role": "user", "content": question}]
    return GenerationRequest(question_id=qid, messages=tuple(messages))


def event(name: str, data: dict) -> str:
    return f"event: {name}\ndata: {json.dumps({'type': name, **data})}\n\n"


def stream_response(pieces: list[str], before_first: float = 0.0, between: float = 0.0,
                    start_usage: dict | None = None, output_tokens: int = 4) -> Response:
    """The Messages API event sequence, pausing before the first text delta and between deltas."""
    def body():
        yield event("message_start", {"message": {
            "id": "msg_1", "type": "message", "role": "assistant", "content": [], "model": "claude-test",
            "stop_reason": None, "stop_sequence": None,
            "usage": start_usage or {"input_tokens": 25, "output_tokens": 1}}})
        yield event("content_block_start", {"index": 0, "content_block": {"type": "text", "text": ""}})
        yield event("ping", {})
        time.sleep(before_first)
        for index, piece in enumerate(pieces):
            if index:
                time.sleep(between)
            yield event("content_block_delta", {"index": 0, "delta": {"type": "text_delta", "text": piece}})
        yield event("content_block_stop", {"index": 0})
        yield event("message_delta", {"delta": {"stop_reason": "end_turn", "stop_sequence": None},
                                      "usage": {"output_tokens": output_tokens}})
        yield event("message_stop", {})
    return Response(body(), content_type="text/event-stream")


def user_text(http_request: Request) -> str:
    return json.loads(http_request.get_data())["messages"][-1]["content"]


def test_streamed_text_tokens_and_timing(httpserver):
    httpserver.expect_request(PATH, method="POST").respond_with_handler(
        lambda r: stream_response(["Every ", "3600", " seconds."], before_first=0.15, between=0.1))
    [generation] = make(httpserver).generate([request("When do tokens expire?")])
    assert generation.error is None
    assert generation.text == "Every 3600 seconds."
    assert (generation.input_tokens, generation.output_tokens) == (25, 4)
    assert 0.15 <= generation.ttft_seconds <= generation.latency_seconds
    # Two 0.1 s pauses between text chunks; the slack absorbs socket buffering of the first one.
    assert generation.latency_seconds - generation.ttft_seconds >= 0.15
    assert generation.extra == {"stop_reason": "end_turn"}


def test_system_messages_go_to_the_system_parameter(httpserver):
    httpserver.expect_request(PATH, method="POST").respond_with_handler(lambda r: stream_response(["ok"]))
    make(httpserver, max_tokens=32).generate([request("What is BM25?")])
    body = json.loads(httpserver.log[0][0].get_data())
    assert body["system"] == "Answer briefly."
    assert body["messages"] == [{"role": "user", "content": "What is BM25?"}]
    assert (body["model"], body["max_tokens"], body["stream"]) == ("claude-test", 32, True)


def test_temperature_is_sent_only_when_set(httpserver):
    # API version 2026-10-21 rejects any sampling parameter, so null (the default YAML) sends none.
    httpserver.expect_request(PATH, method="POST").respond_with_handler(lambda r: stream_response(["ok"]))
    make(httpserver, temperature=0.0).generate([request("q")])
    assert json.loads(httpserver.log[0][0].get_data())["temperature"] == 0.0


def test_no_system_message_no_system_parameter(httpserver):
    httpserver.expect_request(PATH, method="POST").respond_with_handler(lambda r: stream_response(["ok"]))
    make(httpserver, temperature=None).generate([request("q", system=None)])
    body = json.loads(httpserver.log[0][0].get_data())
    assert "system" not in body and "temperature" not in body


def test_split_system_joins_several_system_messages():
    system, rest = split_system(({"role": "system", "content": "A"}, {"role": "user", "content": "q"},
                                 {"role": "system", "content": "B"}))
    assert system == "A\n\nB"
    assert rest == [{"role": "user", "content": "q"}]


def test_cache_tokens_count_as_input(httpserver):
    usage = {"input_tokens": 10, "cache_read_input_tokens": 90, "cache_creation_input_tokens": 5, "output_tokens": 1}
    httpserver.expect_request(PATH, method="POST").respond_with_handler(
        lambda r: stream_response(["ok"], start_usage=usage))
    [generation] = make(httpserver).generate([request("q")])
    assert generation.input_tokens == 105


def test_key_sent_in_the_auth_header_and_never_exposed(httpserver):
    httpserver.expect_request(PATH, method="POST").respond_with_handler(lambda r: stream_response(["ok"]))
    generator = make(httpserver)
    generator.generate([request("q")])
    headers = httpserver.log[0][0].headers
    # SDK 2.x sends the key as a Bearer token; SDK 0.x/1.x sent it as x-api-key.
    assert headers.get("x-api-key") == KEY or headers.get("Authorization") == f"Bearer {KEY}"
    assert "anthropic-version" in headers
    assert KEY not in json.dumps(generator.fingerprint())
    assert KEY not in repr(generator)
    assert KEY not in str(vars(generator))


def test_server_error_fails_one_request_and_the_next_still_runs(httpserver):
    def handler(http_request: Request) -> Response:
        if user_text(http_request) == "boom":
            return Response(json.dumps({"type": "error", "error": {"type": "api_error", "message": "model crashed"}}),
                            status=500, content_type="application/json")
        return stream_response(["fine"])

    httpserver.expect_request(PATH, method="POST").respond_with_handler(handler)
    failed, succeeded = make(httpserver).generate([request("boom", "q1"), request("ok", "q2")])
    assert failed.text == ""
    assert failed.error.startswith("InternalServerError: ")
    assert "model crashed" in failed.error
    assert succeeded.error is None and succeeded.text == "fine"
    assert len(httpserver.log) == 2


def test_error_event_mid_stream_is_an_error_generation(httpserver):
    start = {"id": "m", "type": "message", "role": "assistant", "content": [], "model": "claude-test",
             "usage": {"input_tokens": 3, "output_tokens": 1}}
    body = (event("message_start", {"message": start})
            + event("error", {"error": {"type": "overloaded_error", "message": "Overloaded"}}))
    httpserver.expect_request(PATH, method="POST").respond_with_data(body, content_type="text/event-stream")
    [generation] = make(httpserver).generate([request("q")])
    assert generation.text == ""
    assert "Overloaded" in generation.error


def test_missing_key_variable_fails_at_generate_not_construction(httpserver, monkeypatch):
    monkeypatch.delenv(KEY_ENV)
    generator = make(httpserver)
    with pytest.raises(MissingAPIKeyError, match=KEY_ENV):
        generator.generate([request("q")])
    assert httpserver.log == []


def test_concurrent_requests_keep_request_order(httpserver):
    httpserver.expect_request(PATH, method="POST").respond_with_handler(
        lambda r: stream_response([f"answer to {user_text(r)}"], before_first=0.05))
    questions = [f"question {i}" for i in range(5)]
    generations = make(httpserver, concurrency=2).generate([request(q, f"q{i}") for i, q in enumerate(questions)])
    assert [g.text for g in generations] == [f"answer to {q}" for q in questions]


def test_fingerprint_has_model_and_decoding(httpserver):
    assert make(httpserver, base_url=None).fingerprint() == {
        "generator": "anthropic_chat", "model": "claude-test", "base_url": None, "max_tokens": 64, "temperature": None}


@pytest.mark.parametrize("name, value", [("max_tokens", 0), ("temperature", -1.0), ("timeout", -1),
                                         ("max_retries", -1), ("concurrency", 0)])
def test_bad_arguments_are_named(httpserver, name, value):
    with pytest.raises(ValueError, match=name):
        make(httpserver, **{name: value})
