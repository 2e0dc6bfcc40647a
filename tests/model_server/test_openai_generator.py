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

QUESTIONS = ["What is the capital of France?", "Name a primary colour.", "Which planet is the largest?"]


def requests(questions=QUESTIONS) -> list[GenerationRequest]:
    return [GenerationRequest(f"q{i}", ({"role": "user", "content": q},)) for i, q in enumerate(questions)]


def generator(server, key_env, **settings) -> OpenAIChatGenerator:
    options = dict(model=server.model, base_url=server.base_url, api_key_env=key_env, max_tokens=6,
                   temperature=0.0, timeout=120, max_retries=0, concurrency=1)
    return OpenAIChatGenerator(**{**options, **settings})


def test_streamed_answers_in_order_with_ttft_latency_and_the_servers_usage(model_server, server_key):
    one_by_one = generator(model_server, server_key).generate(requests())
    for answer in one_by_one:
        assert answer.error is None and answer.text.strip()
        assert 0 < answer.ttft_seconds <= answer.latency_seconds
        assert answer.input_tokens > 5 and 1 <= answer.output_tokens <= 6  # the server's own counts
        assert answer.extra["finish_reason"] in ("stop", "length")
    # cost at a configured price, from those counts
    table = PriceTable({"priced": {"input": 2.0, "output": 8.0}})
    first = one_by_one[0]
    assert table.cost("priced", first.input_tokens, first.output_tokens) == pytest.approx(
        (first.input_tokens * 2.0 + first.output_tokens * 8.0) / 1e6)
    # requests in flight together: greedy decoding gives the same answers, in the questions' order
    together = generator(model_server, server_key, concurrency=3).generate(requests())
    assert [a.error for a in together] == [None] * len(QUESTIONS)
    assert [a.text for a in together] == [a.text for a in one_by_one]
    assert len({a.text for a in together}) > 1


def test_a_server_killed_mid_run_fails_the_rest_with_reasons_and_a_restart_finishes(
        served_folder, model_server, server_key, tmp_path):
    server = start(served_folder, log=tmp_path / "killed.log")
    killer = threading.Timer(0.5, server.kill)  # while the requests are being answered
    try:
        killer.start()
        answers = generator(server, server_key, max_tokens=16).generate(requests())
        killer.join()
    finally:
        server.stop()
    assert len(answers) == len(QUESTIONS)  # nothing lost: each request answered or failed
    failed = [(request, a) for request, a in zip(requests(), answers) if a.error is not None]
    assert failed and all(a.text == "" for _, a in failed)
    assert all(a.error.split(":")[0] in ("APIConnectionError", "RemoteProtocolError", "APIError")
               for _, a in failed), {a.error for _, a in failed}
    # resumed against a server with the same model, the failed ones are answered
    redone = generator(model_server, server_key).generate([request for request, _ in failed])
    assert [a.error for a in redone] == [None] * len(failed)
