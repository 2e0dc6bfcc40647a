"""A real OpenAI-compatible HTTP server (``http.server`` in a thread, free loopback port) that
answers well, or with garbage, or refuses the key; and a port on which nothing listens."""

from __future__ import annotations

import json
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

KEY_ENV = "HARNESS_TEST_FAILURES_KEY"
ANSWER = "Tokens expire after 3600 seconds."


def _stream(text: str) -> bytes:
    chunks = [{"choices": [{"index": 0, "delta": {"role": "assistant", "content": text}, "finish_reason": None}]},
              {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}]
    events = [f"data: {json.dumps({'id': 'c1', 'object': 'chat.completion.chunk', 'created': 0, 'model': 'm', **c})}"
              for c in chunks]
    return ("\n\n".join([*events, "data: [DONE]"]) + "\n\n").encode()


def _completion(text: str) -> bytes:
    return json.dumps({"id": "c1", "object": "chat.completion", "created": 0, "model": "m",
                       "choices": [{"index": 0, "finish_reason": "stop",
                                    "message": {"role": "assistant", "content": text}}],
                       "usage": {"prompt_tokens": 10, "completion_tokens": 2, "total_tokens": 12}}).encode()


class _Handler(BaseHTTPRequestHandler):
    """Replies as ``self.server.mode`` says: ok, garbage (HTTP 200, not an API reply) or 401."""

    def do_POST(self) -> None:  # noqa: N802 (http.server's name)
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        if self.server.mode == "401":
            self._send(401, "application/json",
                       json.dumps({"error": {"message": "Incorrect API key provided", "type": "invalid_request_error",
                                             "code": "invalid_api_key"}}).encode())
        elif self.server.mode == "garbage":
            self._send(200, "text/html", b"<html><body>502 Bad Gateway (but sent as 200)</body></html>")
        elif body.get("stream"):
            self._send(200, "text/event-stream", _stream(ANSWER))
        else:
            self._send(200, "application/json", _completion(self.server.judge_reply))

    def _send(self, status: int, content_type: str, payload: bytes) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, *args) -> None:  # keep the test output clean
        pass


@pytest.fixture(autouse=True)
def api_key(monkeypatch):
    for proxy in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
        monkeypatch.delenv(proxy, raising=False)
    monkeypatch.setenv(KEY_ENV, "sk-test-failures-0123456789")


@pytest.fixture
def openai_server():
    """openai_server(mode) -> the ``/v1`` base URL of a running server; stopped after the test."""
    servers = []

    def start(mode: str) -> str:
        if mode == "refused":
            with socket.socket() as probe:  # a free port, closed again: nothing listens there
                probe.bind(("127.0.0.1", 0))
                port = probe.getsockname()[1]
            return f"http://127.0.0.1:{port}/v1"
        server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
        server.mode, server.judge_reply = mode, "8"
        threading.Thread(target=server.serve_forever, daemon=True).start()
        servers.append(server)
        return f"http://127.0.0.1:{server.server_address[1]}/v1"

    yield start
    for server in servers:
        server.shutdown()
        server.server_close()
