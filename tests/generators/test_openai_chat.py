"""OpenAIChatGenerator against a real local HTTP server speaking the chat-completions stream."""

from __future__ import annotations

import json
import time

import pytest
from werkzeug import Request, Response

from harness.generators.base import GenerationRequest
from harness.generators.api import MissingAPIKeyError
from harness.generators.openai_chat import OpenAIChatGenerator

KEY_ENV = "HARNESS_TEST_OPENAI_KEY"
KEY = "sk-test-0123456789abcdef"
PATH = "/v1/chat/completions"


@pytest.fixture(autouse=True)
def api_key(monkeypatch):
    for proxy in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
        monkeypatch.delenv(proxy, raising=False)
    monkeypatch.setenv(KEY_ENV, KEY)


def make(httpserver, **overrides) -> OpenAIChatGenerator:
    args = dict(model="test-model", base_url=httpserver.url_for("/v1"), api_key_env=KEY_ENV, max_tokens=64,
                temperature=0.0, timeout=5.0, max_retries=0)
    args.update(overrides)
    return OpenAIChatGenerator(**args)


def request(question: str, qid: str = "q1", system: str | None = "Answer briefly.") -> GenerationRequest:
    messages = ([{"role": "system", "content": system}] if system else []) + [{"role": "user", "content": question}]
    return GenerationRequest(question_id=qid, messages=tuple(messages))


def chunk(content: str | None = None, role: str | None = None, finish: str | None = None) -> str:
    delta = {k: v for k, v in (("role", role), ("content", content)) if v is not None}
    body = {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 0, "model": "test-model",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
    return f"data: {json.dumps(body)}\n\n"


def usage_chunk(prompt: int, completion: int) -> str:
    body = {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 0, "model": "test-model",
            "choices": [], "usage": {"prompt_tokens": prompt, "completion_tokens": completion,
                                     "total_tokens": prompt + completion}}
    return f"data: {json.dumps(body)}\n\n"


def stream_response(pieces: list[str], before_first: float = 0.0, between: float = 0.0,
                    usage: tuple[int, int] | None = (12, 3)) -> Response:
    """A streamed answer: a role-only chunk, a pause, then the pieces with pauses between them."""
    def body():
        yield chunk(content="", role="assistant")
        time.sleep(before_first)
        for index, piece in enumerate(pieces):
            if index:
                time.sleep(between)
            yield chunk(content=piece, finish="stop" if index == len(pieces) - 1 else None)
        if usage is not None:
            yield usage_chunk(*usage)
        yield "data: [DONE]\n\n"
    return Response(body(), content_type="text/event-stream")


def user_text(http_request: Request) -> str:
    return json.loads(http_request.get_data())["messages"][-1]["content"]


def test_streamed_text_tokens_and_timing(httpserver):
    httpserver.expect_request(PATH, method="POST").respond_with_handler(
        lambda r: stream_response(["Three", "thousand", " six hundred"], before_first=0.15, between=0.1))
    [generation] = make(httpserver).generate([request("When do tokens expire?")])
    assert generation.error is None
    assert generation.text == "Threethousand six hundred"
    assert (generation.input_tokens, generation.output_tokens) == (12, 3)
    # TTFT waits for the first chunk with text, not the role-only chunk sent at once.
    assert 0.15 <= generation.ttft_seconds <= generation.latency_seconds
    # Two 0.1 s pauses between text chunks; the slack absorbs socket buffering of the first one.
    assert generation.latency_seconds - generation.ttft_seconds >= 0.15
    assert generation.extra == {"finish_reason": "stop"}
    assert generation.tokens_per_second > 0


def test_request_body_follows_the_config(httpserver):
    httpserver.expect_request(PATH, method="POST").respond_with_handler(lambda r: stream_response(["ok"]))
    make(httpserver, max_tokens=32, temperature=0.3).generate([request("What is BM25?")])
    body = json.loads(httpserver.log[0][0].get_data())
    assert body["model"] == "test-model"
    assert body["messages"] == [{"role": "system", "content": "Answer briefly."},
                                {"role": "user", "content": "What is BM25?"}]
    assert (body["max_tokens"], body["temperature"]) == (32, 0.3)
    assert body["stream"] is True
    assert body["stream_options"] == {"include_usage": True}


def test_temperature_none_is_left_to_the_server(httpserver):
    httpserver.expect_request(PATH, method="POST").respond_with_handler(lambda r: stream_response(["ok"]))
    make(httpserver, temperature=None).generate([request("q")])
    assert "temperature" not in json.loads(httpserver.log[0][0].get_data())


def test_key_sent_as_bearer_and_never_exposed(httpserver):
    httpserver.expect_request(PATH, method="POST").respond_with_handler(lambda r: stream_response(["ok"]))
    generator = make(httpserver)
    generator.generate([request("q")])
    assert httpserver.log[0][0].headers["Authorization"] == f"Bearer {KEY}"
    assert KEY not in json.dumps(generator.fingerprint())
    assert KEY not in repr(generator)
    assert KEY not in str(vars(generator))
    assert generator.fingerprint() == {"generator": "openai_chat", "model": "test-model",
                                       "base_url": httpserver.url_for("/v1"), "max_tokens": 64,
                                       "temperature": 0.0}


def test_server_error_fails_one_request_and_the_next_still_runs(httpserver):
    def handler(http_request: Request) -> Response:
        if user_text(http_request) == "boom":
            return Response(json.dumps({"error": {"message": "model crashed", "type": "server_error"}}),
                            status=500, content_type="application/json")
        return stream_response(["fine"])

    httpserver.expect_request(PATH, method="POST").respond_with_handler(handler)
    failed, succeeded = make(httpserver).generate([request("boom", "q1"), request("ok", "q2")])
    assert failed.text == ""
    assert failed.error.startswith("InternalServerError: ")
    assert "model crashed" in failed.error
    assert failed.failed
    assert succeeded.error is None and succeeded.text == "fine"
    assert len(httpserver.log) == 2  # max_retries=0: no retry of the 500


def test_malformed_stream_is_an_error_generation(httpserver):
    httpserver.expect_request(PATH, method="POST").respond_with_data(
        chunk("partial") + "data: {not json\n\n", content_type="text/event-stream")
    [generation] = make(httpserver).generate([request("q")])
    assert generation.text == ""
    assert generation.error.startswith("JSONDecodeError: ")


def test_timeout_is_an_error_generation(httpserver):
    httpserver.expect_request(PATH, method="POST").respond_with_handler(
        lambda r: (time.sleep(0.6), stream_response(["late"]))[1])
    [generation] = make(httpserver, timeout=0.2).generate([request("q")])
    assert generation.text == ""
    assert generation.error.startswith("APITimeoutError: ")


def test_key_is_masked_if_an_error_echoes_it(httpserver):
    httpserver.expect_request(PATH, method="POST").respond_with_json(
        {"error": {"message": f"Incorrect API key provided: {KEY}", "type": "invalid_request_error"}}, status=401)
    [generation] = make(httpserver).generate([request("q")])
    assert generation.error.startswith("AuthenticationError: ")
    assert KEY not in generation.error and "***" in generation.error


def test_missing_usage_leaves_token_counts_unknown(httpserver):
    httpserver.expect_request(PATH, method="POST").respond_with_handler(
        lambda r: stream_response(["no usage"], usage=None))
    [generation] = make(httpserver).generate([request("q")])
    assert generation.text == "no usage"
    assert generation.input_tokens is None and generation.output_tokens is None
    assert generation.ttft_seconds is not None


def test_missing_key_variable_fails_at_generate_not_construction(httpserver, monkeypatch):
    monkeypatch.delenv(KEY_ENV)
    generator = make(httpserver)  # instantiating a config needs no key
    with pytest.raises(MissingAPIKeyError, match=KEY_ENV):
        generator.generate([request("q")])
    monkeypatch.setenv(KEY_ENV, "  ")
    with pytest.raises(MissingAPIKeyError, match=KEY_ENV):
        generator.generate([request("q")])
    assert httpserver.log == []


def test_concurrent_requests_keep_request_order(httpserver):
    httpserver.expect_request(PATH, method="POST").respond_with_handler(
        lambda r: stream_response([f"answer to {user_text(r)}"], before_first=0.05))
    questions = [f"question {i}" for i in range(6)]
    generations = make(httpserver, concurrency=3).generate([request(q, f"q{i}") for i, q in enumerate(questions)])
    assert [g.text for g in generations] == [f"answer to {q}" for q in questions]


def test_no_requests_no_calls(httpserver):
    assert make(httpserver).generate([]) == []


@pytest.mark.parametrize("name, value", [("max_tokens", 0), ("temperature", -0.1), ("timeout", 0),
                                         ("max_retries", -1), ("concurrency", 0)])
def test_bad_arguments_are_named(httpserver, name, value):
    with pytest.raises(ValueError, match=name):
        make(httpserver, **{name: value})
