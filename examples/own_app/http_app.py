"""rag_app behind a JSON endpoint: POST {"question": ..., "top_k": ...} -> {"answer": ..., "contexts": [...]}."""

import json
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from rag_app import answer


class Handler(BaseHTTPRequestHandler):
    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        status, reply = self.respond(body)
        reply = json.dumps(reply).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(reply)))
        self.end_headers()
        self.wfile.write(reply)

    def respond(self, body: dict) -> tuple[int, dict]:
        """The HTTP status and JSON reply to one request's body."""
        return 200, answer(body["question"], top_k=int(body.get("top_k", 2)))

    def log_message(self, *args):  # quiet
        pass


def server(port: int = 8000, handler: type[Handler] = Handler) -> ThreadingHTTPServer:
    return ThreadingHTTPServer(("127.0.0.1", port), handler)


if __name__ == "__main__":
    server().serve_forever()
