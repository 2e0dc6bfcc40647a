"""app=http in front of the real server: a minimal RAG endpoint whose answers come from
``transformers serve``; the harness reads its answers, contexts and the server's token counts."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
import requests

from harness.apps.http import HttpApp
from harness.cache import DiskCache
from harness.data.records import Question

pytestmark = pytest.mark.slow
CONTEXT = "The Spree flows through Berlin."


def rag_endpoint(model_server) -> ThreadingHTTPServer:
    """POST {question} -> {answer, contexts, usage}: one fixed context, the answer from the model server."""

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):
            question = json.loads(self.rfile.read(int(self.headers["Content-Length"])))["question"]
            chat = requests.post(f"{model_server.base_url}/chat/completions", timeout=120, json={
                "model": model_server.model, "max_tokens": 6, "temperature": 0.0,
                "messages": [{"role": "user", "content": f"Context: {CONTEXT}\nQuestion: {question}"}]}).json()
            body = json.dumps({"answer": chat["choices"][0]["message"]["content"], "contexts": [CONTEXT],
                               "usage": chat["usage"]}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    return ThreadingHTTPServer(("127.0.0.1", 0), Handler)


def test_an_app_in_front_of_the_server(model_server, tmp_path):
    server = rag_endpoint(model_server)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        app = HttpApp(f"http://127.0.0.1:{server.server_address[1]}/rag", request={"question": "{question}"},
                      reply={"answer": "answer", "contexts": "contexts", "input_tokens": "usage.prompt_tokens",
                             "output_tokens": "usage.completion_tokens", "cost_usd": None},
                      concurrency=2, timeout=120, max_retries=0, retry_wait_seconds=0.5, max_failed_fraction=0.5,
                      params={}, version=None, top_k=None)
        questions = [Question(id="q1", text="Which river flows through Berlin?"),
                     Question(id="q2", text="Name the river in Berlin.")]
        replies = app.answer_all(questions, DiskCache(tmp_path))
    finally:
        server.shutdown()
        server.server_close()
    assert [r.error for r in replies] == [None, None]
    for reply in replies:
        assert reply.answer.strip() and [c.text for c in reply.contexts] == [CONTEXT]
        assert reply.input_tokens > 10 and 1 <= reply.output_tokens <= 6 and reply.latency_seconds > 0
