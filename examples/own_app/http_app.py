"""rag_app behind a JSON endpoint: POST {"question": ..., "top_k": ...} -> {"answer": ..., "contexts": [...]}."""

import json
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from rag_app import answer


class Handler(BaseHTTPRequestHandler):
    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        reply = json.dumps(answer(body["question"], top_k=int(body.get("top_k", 2)))).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(reply)))
        self.end_headers()
        self.wfile.write(reply)

    def log_message(self, *args):  # quiet
        pass


def server(port: int = 8000) -> ThreadingHTTPServer:
    return ThreadingHTTPServer(("127.0.0.1", port), Handler)


if __name__ == "__main__":
    server().serve_forever()
