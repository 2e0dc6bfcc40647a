"""``app=http``: your application behind a JSON endpoint.

Each question is one request: ``app.request`` is the JSON body, in which every ``{question}`` and
``{id}`` inside a string becomes the question's text and id, with ``app.params`` added at its top
level (so a sweep's values reach the app). ``app.reply`` names where the answer, the contexts (and
tokens and cost, when the app reports them) are in the JSON reply, as dotted paths. A connection
error, a time-out, HTTP 429 or 5xx is tried again (``max_retries``, waiting ``retry_wait_seconds``,
doubled each time); then, like any other HTTP error or a reply without its answer, the question
fails with that reason. An OpenAI-compatible chat endpoint is ``generator=openai`` instead.
"""

from __future__ import annotations

import json
import os
import time
import urllib.error
import urllib.request
from typing import Any

from harness.apps.base import App
from harness.apps.replies import MalformedReply
from harness.config.secrets import redact_text
from harness.data.hf import lookup
from harness.data.records import Question

RETRIED_STATUS = (429, 500, 502, 503, 504)
SHOWN_CHARS = 300


class HttpError(RuntimeError):
    """The endpoint answered with an HTTP error status."""


class HttpApp(App):
    def __init__(self, url: str, reply: dict[str, str | None], method: str = "POST",
                 request: dict[str, Any] | None = None, headers: dict[str, str] | None = None,
                 api_key_env: str | None = None, max_retries: int = 2, retry_wait_seconds: float = 0.5,
                 **options: Any) -> None:
        super().__init__(**options)
        if not url.startswith(("http://", "https://")):
            raise ValueError(f"app.url must be an http:// or https:// URL, got {redact_text(url)!r}")
        if method.upper() not in ("POST", "PUT", "GET"):
            raise ValueError(f"app.method must be POST, PUT or GET, got {method!r}")
        if not reply.get("answer"):
            raise ValueError("app.reply.answer must name where the answer is in the reply (a dotted path)")
        if max_retries < 0 or retry_wait_seconds < 0:
            raise ValueError(f"app.max_retries and app.retry_wait_seconds must be >= 0, "
                             f"got {max_retries} and {retry_wait_seconds}")
        self.url, self.method, self.reply_fields = url, method.upper(), dict(reply)
        self.request, self.headers, self.api_key_env = dict(request or {}), dict(headers or {}), api_key_env
        self.max_retries, self.retry_wait_seconds = max_retries, retry_wait_seconds

    @property
    def name(self) -> str:
        return redact_text(self.url)

    def code(self) -> dict[str, Any]:
        return {"app": "http", "url": redact_text(self.url), "method": self.method, "request": self.request,
                "reply": self.reply_fields}

    def body(self, question: Question) -> dict[str, Any]:
        """The request's JSON body for ``question``.

        >>> app = HttpApp("http://localhost:1/rag", reply={"answer": "answer"}, request={"q": "{question}"},
        ...               params={"top_k": 3})
        >>> app.body(Question(id="q1", text="Why?"))
        {'q': 'Why?', 'top_k': 3}
        """
        return {**_render(self.request, question), **self.params}

    def call(self, question: Question) -> Any:
        data = json.dumps(self.body(question)).encode()
        headers = {"Content-Type": "application/json", "Accept": "application/json", **self.headers}
        if self.api_key_env:
            key = os.environ.get(self.api_key_env, "")
            if not key.strip():
                raise RuntimeError(f"environment variable {self.api_key_env} (app.api_key_env) is not set")
            headers["Authorization"] = f"Bearer {key}"
        for attempt in range(self.max_retries + 1):
            try:
                return self._read(self._send(data if self.method != "GET" else None, headers))
            except (HttpError, urllib.error.URLError, TimeoutError, ConnectionError) as err:
                status = getattr(err, "status", None)
                if attempt == self.max_retries or (status is not None and status not in RETRIED_STATUS):
                    raise
                time.sleep(self.retry_wait_seconds * 2 ** attempt)
        raise AssertionError("unreachable")

    def _send(self, data: bytes | None, headers: dict[str, str]) -> bytes:
        request = urllib.request.Request(self.url, data=data, headers=headers, method=self.method)
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                return response.read()
        except urllib.error.HTTPError as err:
            shown = err.read()[:SHOWN_CHARS].decode("utf-8", "replace")
            error = HttpError(f"HTTP {err.code} from {redact_text(self.url)}: {shown}")
            error.status = err.code
            raise error from None

    def _read(self, raw: bytes) -> dict[str, Any]:
        try:
            body = json.loads(raw)
        except (UnicodeDecodeError, json.JSONDecodeError) as err:
            raise MalformedReply(f"the reply is not JSON ({err}): {raw[:SHOWN_CHARS]!r}") from None
        answer = lookup(body, self.reply_fields["answer"]) if isinstance(body, dict) else None
        if answer is None:
            shown = json.dumps(body)[:SHOWN_CHARS]
            raise MalformedReply(f"no '{self.reply_fields['answer']}' (app.reply.answer) in the reply {shown}")
        found = {key: lookup(body, path) for key, path in self.reply_fields.items() if path and key != "answer"}
        return {"answer": answer, **{key: value for key, value in found.items() if value is not None}}


def _render(value: Any, question: Question) -> Any:
    if isinstance(value, str):
        return value.replace("{question}", question.text).replace("{id}", question.id)
    if isinstance(value, dict):
        return {key: _render(item, question) for key, item in value.items()}
    if isinstance(value, list):
        return [_render(item, question) for item in value]
    return value
