"""What the API-backed chat generators share: keys from the environment, retries, concurrency."""

from __future__ import annotations

import os
from abc import abstractmethod
from typing import Any

from harness.config.secrets import redact_text
from harness.generators.base import Generation, GenerationRequest, Generator
from harness.progress import map_with_progress


class MissingAPIKeyError(RuntimeError):
    """The environment variable configured to hold an API key is unset or empty."""


class UnparsableReplyError(RuntimeError):
    """The server answered, but nothing in its reply is an answer (no text and no stop reason).

    Such a reply is a failed generation with this reason, never an empty answer scored 0.
    """


def api_key_from_env(variable: str, service: str) -> str:
    """The key held by ``variable``; the key itself is never stored on a generator."""
    value = os.environ.get(variable, "")
    if not value.strip():
        raise MissingAPIKeyError(f"environment variable {variable} is not set; it must hold the {service} API key "
                                 f"(or point api_key_env at the variable that does)")
    return value


def describe_error(err: BaseException, secret: str) -> str:
    """``"<ExceptionType>: <message>"`` with the API key masked, should a message ever echo it."""
    return f"{type(err).__name__}: {err}".replace(secret, "***")


def check_decoding_args(max_tokens: int, temperature: float | None, timeout: float, max_retries: int,
                        concurrency: int) -> None:
    if max_tokens < 1:
        raise ValueError(f"max_tokens must be >= 1, got {max_tokens}")
    if temperature is not None and temperature < 0:
        raise ValueError(f"temperature must be >= 0 or null, got {temperature}")
    if timeout <= 0:
        raise ValueError(f"timeout must be > 0 seconds, got {timeout}")
    if max_retries < 0:
        raise ValueError(f"max_retries must be >= 0, got {max_retries}")
    if concurrency < 1:
        raise ValueError(f"concurrency must be >= 1, got {concurrency}")


class ApiChatGenerator(Generator):
    """A chat API client: one streamed request per question, a failed request recorded, not raised.

    Subclasses open the SDK client (``_client``) and stream one request (``_stream``); the key
    is read from the environment at each ``generate()`` and never stored on the object.
    """

    kind = "api_chat"
    service = "API"

    def __init__(self, *, model: str, api_key_env: str, max_tokens: int, temperature: float | None,
                 timeout: float, max_retries: int, base_url: str | None = None, concurrency: int = 1,
                 price_as: str | None = None) -> None:
        if not api_key_env:
            raise ValueError("api_key_env must name an environment variable")
        check_decoding_args(max_tokens, temperature, timeout, max_retries, concurrency)
        self.model, self.base_url, self.api_key_env = model, base_url, api_key_env
        self.max_tokens, self.temperature = max_tokens, temperature
        self.timeout, self.max_retries, self.concurrency = timeout, max_retries, concurrency
        self.price_as = price_as

    def __repr__(self) -> str:
        return (f"{type(self).__name__}(model={self.model!r}, base_url={self.base_url!r}, "
                f"api_key_env={self.api_key_env!r})")

    def fingerprint(self) -> dict[str, Any]:
        return {"generator": self.kind, "model": self.model, "base_url": redact_text(self.base_url),
                "max_tokens": self.max_tokens, "temperature": self.temperature}

    def generate(self, requests: list[GenerationRequest]) -> list[Generation]:
        key = api_key_from_env(self.api_key_env, self.service)
        with self._client(key) as client:
            def answer(request: GenerationRequest) -> Generation:
                try:
                    return self._stream(client, request)
                except Exception as err:  # one failed request never stops the others
                    return Generation(text="", error=describe_error(err, key))

            return map_with_progress(answer, requests, self.concurrency, f"generating answers ({self.model})")

    @abstractmethod
    def _client(self, key: str):
        """The SDK client (a context manager)."""

    @abstractmethod
    def _stream(self, client, request: GenerationRequest) -> Generation:
        """One streamed request, timed from sending to the first text and to the end."""
