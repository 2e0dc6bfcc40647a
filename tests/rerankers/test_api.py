"""The api reranker against a real OpenAI-compatible HTTP server on loopback: listwise windows,
pointwise grades, token cost, and failures that keep the first-stage order."""

from __future__ import annotations

import json
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from hydra.utils import instantiate

from harness.cache import DiskCache
from harness.chunkers.base import Chunk
from harness.rerankers.api import permutation

KEY_ENV = "HARNESS_TEST_RERANK_KEY"
PASSAGES = [f"passage number {i}" for i in range(6)]
CHUNKS = [Chunk(id=f"c{i}", doc_id=f"d{i}", text=t, start=0, end=len(t)) for i, t in enumerate(PASSAGES)]
FIRST = [[(i, 10.0 - i) for i in range(6)]]


class _Handler(BaseHTTPRequestHandler):
    def do_POST(self) -> None:  # noqa: N802
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.server.requests.append(body)
        prompt = body["messages"][-1]["content"]
        text = self.server.reply(prompt)
        payload = json.dumps({"id": "c", "object": "chat.completion", "created": 0, "model": body["model"],
                              "choices": [{"index": 0, "finish_reason": "stop",
                                           "message": {"role": "assistant", "content": text}}],
                              "usage": {"prompt_tokens": 1000, "completion_tokens": 10,
                                        "total_tokens": 1010}}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, *args) -> None:
        pass


def reverse_window(prompt: str) -> str:
    """Ranks a window's passages by their number, highest first (the reverse of the first stage)."""
    numbered = re.findall(r"\[(\d+)\] passage number (\d+)", prompt)
    return " > ".join(f"[{n}]" for n, _ in sorted(numbered, key=lambda pair: -int(pair[1])))


@pytest.fixture
def server(monkeypatch):
    for proxy in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
        monkeypatch.delenv(proxy, raising=False)
    monkeypatch.setenv(KEY_ENV, "sk-rerank-test-0123456789")
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    httpd.requests, httpd.reply = [], reverse_window
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield httpd
    httpd.shutdown()
    httpd.server_close()


def reranker(compose, httpd, *overrides):
    cfg = compose(["reranker=api", f"reranker.base_url=http://127.0.0.1:{httpd.server_address[1]}/v1",
                   f"reranker.api_key_env={KEY_ENV}", "reranker.model=gpt-4o-mini", "reranker.candidates=6",
                   "reranker.top_k=6", "reranker.concurrency=1", "reranker.max_retries=0", *overrides])
    return instantiate(cfg.reranker)


def test_listwise_sliding_windows_bubble_the_best_to_the_top(compose, server, tmp_path):
    out = reranker(compose, server, "reranker.listwise.window=4", "reranker.listwise.step=2").rerank(
        ["q"], FIRST, CHUNKS, DiskCache(tmp_path))
    # RankGPT's pass from the bottom: window positions 2-5 (passages 2 3 4 5) -> 0 1 5 4 3 2, then
    # positions 0-3 (0 1 5 4) -> 5 4 1 0 3 2: the best (window - step) passages reach the top.
    assert [c for c, _ in out.rankings[0]] == [5, 4, 1, 0, 3, 2]
    assert len(server.requests) == 2 and out.tally.failed == 0
    # 2 calls x (1000 input, 10 output) tokens at gpt-4o-mini's seed-003 price ($0.15 / $0.60 per 1M)
    assert out.cost_usd == pytest.approx(2 * (1000 * 0.15 + 10 * 0.60) / 1e6)
    assert "sk-rerank-test" not in json.dumps(server.requests)


def test_pointwise_grades_each_passage(compose, server, tmp_path):
    server.reply = lambda prompt: "Grade: " + str(int(re.search(r"passage number (\d+)", prompt)[1]) % 4)
    out = reranker(compose, server, "reranker.mode=pointwise").rerank(["q"], FIRST, CHUNKS, DiskCache(tmp_path))
    assert dict(out.rankings[0]) == {0: 0.0, 1: 1.0, 2: 2.0, 3: 3.0, 4: 0.0, 5: 1.0}
    assert [c for c, _ in out.rankings[0]][:2] == [3, 2]
    assert len(server.requests) == 6


@pytest.mark.parametrize("reply, reason", [("I cannot rank these.", "no passage identifiers"),
                                           ("[9] > [12]", "no passage identifiers")])
def test_an_unparsable_reply_is_a_failure_and_keeps_the_first_stage_order(compose, server, tmp_path, reply, reason):
    server.reply = lambda prompt: reply
    out = reranker(compose, server).rerank(["q"], FIRST, CHUNKS, DiskCache(tmp_path))
    assert out.rankings == [FIRST[0]]
    assert out.tally.failed == 1 and reason in next(iter(out.tally.reasons))


def test_a_missing_key_or_refused_connection_is_a_failure_with_its_reason(compose, server, tmp_path, monkeypatch):
    monkeypatch.delenv(KEY_ENV)
    out = reranker(compose, server).rerank(["q"], FIRST, CHUNKS, DiskCache(tmp_path))
    assert out.tally.failed == 1 and KEY_ENV in next(iter(out.tally.reasons))
    monkeypatch.setenv(KEY_ENV, "sk-rerank-test-0123456789")
    server.shutdown()
    server.server_close()
    out = reranker(compose, server).rerank(["q"], FIRST, CHUNKS, DiskCache(tmp_path / "other"))
    assert out.tally.failed == 1 and "Connection" in next(iter(out.tally.reasons))
    assert out.rankings == [FIRST[0]]


def test_permutation_reads_identifiers_and_appends_the_missing_ones():
    assert permutation("[3] > [1] > [3] > [7]", 4) == [2, 0, 1, 3]
    assert permutation("nothing", 4) is None
