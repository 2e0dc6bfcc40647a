"""generator=openai against a real server: streamed answers, TTFT, the server's usage, order under
concurrency, and a server killed mid-run (failures with reasons; the rest answered after a restart)."""

from __future__ import annotations

import threading

import pytest

from harness.generators.base import GenerationRequest
from harness.generators.openai_chat import OpenAIChatGenerator
from harness.generators.pricing import PriceTable
from harness.serving import start

pytestmark = pytest.mark.slow

QUESTIONS = ["What is the capital of France?", "Name a primary colour.", "What is two plus two?",
             "Which planet is the largest?"]


def requests(questions=QUESTIONS) -> list[GenerationRequest]:
    return [GenerationRequest(f"q{i}", ({"role": "user", "content": q},)) for i, q in enumerate(questions)]


def generator(server, key_env, **settings) -> OpenAIChatGenerator:
    options = dict(model=server.model, base_url=server.base_url, api_key_env=key_env, max_tokens=8,
                   temperature=0.0, timeout=120, max_retries=0, concurrency=1)
    return OpenAIChatGenerator(**{**options, **settings})


def test_streamed_answers_carry_ttft_latency_and_the_servers_usage(model_server, server_key):
    answers = generator(model_server, server_key).generate(requests()[:2])
    for answer in answers:
        assert answer.error is None and answer.text.strip()
        assert 0 < answer.ttft_seconds <= answer.latency_seconds
        assert answer.input_tokens > 5 and 1 <= answer.output_tokens <= 8  # the server's own counts
        assert answer.extra["finish_reason"] in ("stop", "length")
    # cost at a configured price, from those counts
    table = PriceTable({"priced": {"input": 2.0, "output": 8.0}})
    first = answers[0]
    assert table.cost("priced", first.input_tokens, first.output_tokens) == pytest.approx(
        (first.input_tokens * 2.0 + first.output_tokens * 8.0) / 1e6)


def test_concurrent_requests_keep_answer_order(model_server, server_key):
    one_by_one = generator(model_server, server_key).generate(requests())
    together = generator(model_server, server_key, concurrency=3).generate(requests())
    assert [a.error for a in together] == [None] * len(QUESTIONS)
    # greedy decoding: the same answer to the same question, in the questions' order
    assert [a.text for a in together] == [a.text for a in one_by_one]
    assert len({a.text for a in together}) > 1


def test_a_server_killed_mid_run_fails_the_rest_with_reasons_and_a_restart_finishes(served_folder, server_key,
                                                                                   tmp_path):
    server = start(served_folder, log=tmp_path / "killed.log")
    try:
        client = generator(server, server_key, max_tokens=16)
        first = client.generate(requests()[:1])
        assert first[0].error is None
        killer = threading.Timer(0.5, server.kill)  # while the next requests are being answered
        killer.start()
        answers = client.generate(requests() * 3)
        killer.join()
    finally:
        server.stop()
    assert len(answers) == 3 * len(QUESTIONS)  # nothing lost: each request answered or failed
    failed = [a for a in answers if a.error is not None]
    assert failed and all(a.text == "" for a in failed)
    assert all(a.error.split(":")[0] in ("APIConnectionError", "RemoteProtocolError", "APIError") for a in failed), \
        {a.error for a in failed}
    # resumed against a new server, the failed ones are answered
    again = start(served_folder, log=tmp_path / "again.log")
    try:
        redone = generator(again, server_key, max_tokens=16).generate(
            [r for r, a in zip(requests() * 3, answers) if a.error is not None][:2])
    finally:
        again.stop()
    assert [a.error for a in redone] == [None] * len(redone)
