"""The OpenAI-compatible and Anthropic judges against a local HTTP server: retries with backoff
on 429, 5xx and timeouts, the repair round-trip on malformed JSON, and keys that never leak."""

from __future__ import annotations

import json
import time

import pytest
from hydra.utils import instantiate
from werkzeug import Request, Response

from harness.judges.anthropic_judge import AnthropicJudge
from harness.judges.items import item_for
from harness.judges.openai_judge import OpenAIJudge
from tests.judges.conftest import make_record

KEY_ENV = "HARNESS_TEST_JUDGE_KEY"
KEY = "sk-judge-test-5f1e2d3c4b5a69788796a5b4"
PATHS = {"openai": "/v1/chat/completions", "anthropic": "/v1/messages"}


@pytest.fixture(autouse=True)
def api_key(monkeypatch):
    for proxy in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
        monkeypatch.delenv(proxy, raising=False)
    monkeypatch.setenv(KEY_ENV, KEY)


def make(kind: str, httpserver, **overrides):
    args = dict(model="judge-model", api_key_env=KEY_ENV, max_tokens=64, temperature=0.0, timeout=5.0,
                max_retries=2)
    args.update(overrides)
    if kind == "openai":
        return OpenAIJudge(base_url=httpserver.url_for("/v1"), **args)
    return AnthropicJudge(base_url=httpserver.url_for("/").rstrip("/"), **args)


def reply(kind: str, text: str) -> Response:
    if kind == "openai":
        body = {"id": "chatcmpl-1", "object": "chat.completion", "created": 0, "model": "judge-model",
                "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
                "usage": {"prompt_tokens": 10, "completion_tokens": 1, "total_tokens": 11}}
    else:
        body = {"id": "msg_1", "type": "message", "role": "assistant", "model": "judge-model",
                "content": [{"type": "text", "text": text}], "stop_reason": "end_turn", "stop_sequence": None,
                "usage": {"input_tokens": 10, "output_tokens": 1}}
    return Response(json.dumps(body), content_type="application/json")


def error(status: int, message: str, headers: dict | None = None) -> Response:
    return Response(json.dumps({"error": {"message": message, "type": "error"}}), status=status,
                    content_type="application/json", headers=headers or {})


def scripted(kind: str, httpserver, *responses):
    """Serves the responses in order (a callable is called with the request); records the arrival times."""
    queue, arrivals = list(responses), []

    def handler(request: Request) -> Response:
        arrivals.append(time.perf_counter())
        step = queue.pop(0) if len(queue) > 1 else queue[0]
        return step if isinstance(step, Response) else step(request)

    httpserver.expect_request(PATHS[kind], method="POST").respond_with_handler(handler)
    return arrivals


def sent(httpserver, index: int = -1) -> dict:
    return json.loads(httpserver.log[index][0].get_data())


def judge_answer(judge, rubric_obj, answer: str = "After 3600 seconds."):
    item = item_for(make_record(answer=answer), "with_context")
    [judgement] = rubric_obj.evaluate(judge, [item])
    return judgement


KINDS = ["openai", "anthropic"]


@pytest.mark.parametrize("kind", KINDS)
def test_scores_with_the_seed_prompt_and_the_key_as_header(kind, httpserver, rubric):
    scripted(kind, httpserver, reply(kind, "9"))
    judgement = judge_answer(make(kind, httpserver), rubric("answer_score"))
    assert judgement.score == 9.0 and judgement.argmax == 9.0 and judgement.raw == "9"
    body, headers = sent(httpserver), httpserver.log[0][0].headers
    assert body["model"] == "judge-model" and body["max_tokens"] == 64 and "stream" not in body
    assert body["messages"][-1]["content"].startswith("Score 0-10.\nQ: When do tokens expire?")
    assert body["temperature"] == 0.0
    # OpenAI sends a bearer token; Anthropic SDKs send x-api-key or (2.x) a bearer token.
    assert f"Bearer {KEY}" == headers.get("Authorization") or headers.get("x-api-key") == KEY


@pytest.mark.parametrize("kind", KINDS)
def test_429_then_success(kind, httpserver, rubric):
    scripted(kind, httpserver, error(429, "rate limited", {"retry-after-ms": "20"}), reply(kind, "7"))
    judgement = judge_answer(make(kind, httpserver), rubric("answer_score"))
    assert judgement.score == 7.0 and len(httpserver.log) == 2


@pytest.mark.parametrize("kind", KINDS)
def test_503_is_retried_after_an_exponential_backoff(kind, httpserver, rubric):
    arrivals = scripted(kind, httpserver, error(503, "overloaded"), error(503, "overloaded"), reply(kind, "6"))
    judgement = judge_answer(make(kind, httpserver), rubric("answer_score"))
    assert judgement.score == 6.0 and len(arrivals) == 3
    first_wait, second_wait = arrivals[1] - arrivals[0], arrivals[2] - arrivals[1]
    # The SDKs wait 0.5 s x 2^n minus up to 25 % jitter: >= 0.375 s, then >= 0.75 s.
    assert first_wait >= 0.37 and second_wait >= 0.74


@pytest.mark.parametrize("kind", KINDS)
def test_timeout_is_retried(kind, httpserver, rubric):
    scripted(kind, httpserver, lambda r: (time.sleep(0.4), reply(kind, "5"))[1], reply(kind, "8"))
    judgement = judge_answer(make(kind, httpserver, timeout=0.2), rubric("answer_score"))
    assert judgement.score == 8.0 and len(httpserver.log) == 2


@pytest.mark.parametrize("kind", KINDS)
def test_retries_exhausted_is_missing_with_the_reason(kind, httpserver, rubric):
    scripted(kind, httpserver, error(429, "rate limited", {"retry-after-ms": "10"}))
    judgement = judge_answer(make(kind, httpserver, max_retries=1), rubric("answer_score"))
    assert judgement.failed and judgement.score is None
    assert judgement.missing.startswith("judge call failed: RateLimitError")
    assert len(httpserver.log) == 2  # one try plus one retry, and no repair of a failed call


@pytest.mark.parametrize("kind", KINDS)
def test_malformed_json_gets_one_repair(kind, httpserver, rubric):
    scripted(kind, httpserver, reply(kind, '{"grade": 8, "reasoning": "cut off'),
             reply(kind, '{"grade": 8, "reasoning": "the needle is chunk 1"}'))
    item = item_for(make_record(), "retrieval")
    [judgement] = rubric("retrieval_grade").evaluate(make(kind, httpserver), [item])
    assert judgement.score == 8.0 and judgement.reasoning == "the needle is chunk 1"
    assert judgement.detail["repaired"] is True
    repair = sent(httpserver, 1)["messages"]
    assert repair[-2] == {"role": "assistant", "content": '{"grade": 8, "reasoning": "cut off'}
    assert repair[-1]["content"].startswith("Your reply could not be used: not valid JSON")


@pytest.mark.parametrize("kind", KINDS)
def test_malformed_twice_or_out_of_range_is_missing(kind, httpserver, rubric):
    scripted(kind, httpserver, reply(kind, "Definitely a 9!"), reply(kind, "12"))
    judgement = judge_answer(make(kind, httpserver), rubric("answer_score"))
    assert judgement.score is None and judgement.raw == "12"
    assert judgement.missing == ("unparsable after one repair: score 12 is outside the scale 0-10 "
                                 "(first reply: expected a number only, got \"Definitely a 9!\")")


@pytest.mark.parametrize("kind", KINDS)
def test_the_key_never_leaks_into_errors_fingerprints_or_judgements(kind, httpserver, rubric):
    scripted(kind, httpserver, error(401, f"Incorrect API key provided: {KEY}"))
    judge = make(kind, httpserver, max_retries=0)
    judgement = judge_answer(judge, rubric("answer_score"))
    assert judgement.failed and "AuthenticationError" in judgement.missing and "***" in judgement.missing
    assert KEY not in json.dumps(judgement.row()) and KEY not in repr(judge) and KEY not in str(vars(judge))
    assert KEY not in json.dumps(judge.fingerprint())


@pytest.mark.parametrize("kind", KINDS)
def test_unset_key_variable_makes_judgements_missing_without_a_request(kind, httpserver, rubric, monkeypatch):
    monkeypatch.delenv(KEY_ENV)
    scripted(kind, httpserver, reply(kind, "9"))
    judgement = judge_answer(make(kind, httpserver), rubric("answer_score"))
    assert judgement.failed and f"environment variable {KEY_ENV} is not set" in judgement.missing
    assert httpserver.log == []


def test_anthropic_system_text_and_null_temperature(httpserver, rubric):
    scripted("anthropic", httpserver, reply("anthropic", "8"))
    judge = make("anthropic", httpserver, temperature=None)
    prompt = (({"role": "system", "content": "Be strict."}, {"role": "user", "content": "Score it."}))
    from harness.judges.base import JudgePrompt

    [answer] = judge.complete([JudgePrompt(prompt)])
    assert answer.text == "8"
    body = sent(httpserver)
    assert body["system"] == "Be strict." and body["messages"] == [{"role": "user", "content": "Score it."}]
    assert "temperature" not in body


def test_seed_model_aliases(compose):
    resolved = {alias: instantiate(compose(["judge=anthropic", f"judge.model={alias}"]).judge).model
                for alias in ("claude-haiku", "claude-sonnet", "claude-opus")}
    assert resolved == {"claude-haiku": "claude-haiku-4-5-20251001", "claude-sonnet": "claude-sonnet-4-20250514",
                        "claude-opus": "claude-opus-4-6"}
    assert instantiate(compose(["judge=anthropic", "judge.model=claude-x-1"]).judge).model == "claude-x-1"
    openai = instantiate(compose(["judge=openai"]).judge)
    assert (openai.model, openai.temperature, openai.api_key_env) == ("gpt-4o-mini", 0.0, "OPENAI_API_KEY")


def test_concurrent_requests_keep_their_order(httpserver, rubric):
    def handler(request: Request) -> Response:
        content = json.loads(request.get_data())["messages"][-1]["content"]
        return reply("openai", "2" if "Never" in content else "9")

    httpserver.expect_request(PATHS["openai"], method="POST").respond_with_handler(handler)
    judge = make("openai", httpserver, concurrency=3)
    items = [item_for(make_record(qid=f"q{i}", answer="Never." if i % 2 else "After 3600 seconds."),
                      "with_context") for i in range(6)]
    scores = [j.score for j in rubric("answer_score").evaluate(judge, items)]
    assert scores == [9.0, 2.0, 9.0, 2.0, 9.0, 2.0]


@pytest.mark.parametrize("structured", [True, False])
def test_json_rubrics_send_their_reply_schema_when_structured_output_is_on(httpserver, rubric, structured):
    answer = json.dumps({"score": 8, "explanation": "the answer is there", "verdict": "PASS"})
    scripted("openai", httpserver, reply("openai", answer), reply("openai", "7"))
    judge = make("openai", httpserver, structured_output=structured)
    [judgement] = rubric("manual_grade").evaluate(judge, [item_for(make_record(), "retrieval")])
    assert (judgement.score, judgement.verdict) == (8.0, "PASS")
    body = sent(httpserver, 0)
    if not structured:
        assert "response_format" not in body
        assert "structured_output" not in judge.fingerprint()
        return
    schema = body["response_format"]["json_schema"]["schema"]
    assert body["response_format"]["type"] == "json_schema"
    assert schema["required"] == ["score", "explanation", "verdict"] and schema["additionalProperties"] is False
    assert schema["properties"]["score"] == {"type": "integer", "minimum": 1, "maximum": 10}
    assert schema["properties"]["verdict"]["enum"] == ["PASS", "PARTIAL", "FAIL"]
    assert judge.fingerprint()["structured_output"] is True  # constrained replies are cached apart
    # a rubric whose reply is a bare number has no schema to send
    judge_answer(judge, rubric("answer_score"))
    assert "response_format" not in sent(httpserver)
