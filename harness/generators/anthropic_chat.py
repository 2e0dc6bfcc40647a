"""Answers from Anthropic's Messages API, streamed to time the first token (seed 003, section 9).

TTFT runs from sending the request to the first ``text_delta``; the latency to ``message_stop``.
Input tokens are counted at ``message_start`` (plus any cache reads and writes, so they match
the prompt size an OpenAI server reports); output tokens are the cumulative count in the last
``message_delta``.
"""

from __future__ import annotations

import time
from typing import Any

from harness.generators.api import ApiChatGenerator, UnparsableReplyError
from harness.generators.base import Generation, GenerationRequest


def split_system(messages: tuple[dict[str, str], ...]) -> tuple[str | None, list[dict[str, str]]]:
    """Anthropic takes system text as a parameter, not a message: pull it out (joined if several)."""
    system = [m["content"] for m in messages if m["role"] == "system"]
    rest = [{"role": m["role"], "content": m["content"]} for m in messages if m["role"] != "system"]
    return ("\n\n".join(system) if system else None), rest


class AnthropicChatGenerator(ApiChatGenerator):
    """Streams ``messages.create`` through the ``anthropic`` SDK.

    Args:
        model: the Anthropic model id (aliases are resolved in YAML).
        api_key_env: NAME of the environment variable holding the key, read at the first
            ``generate()`` so configs compose and instantiate without it.
        max_tokens: answer length cap (required by the API).
        temperature: ``None`` (recommended) sends no sampling parameter. Anthropic API version
            2026-10-21, the default of SDK 2.x, rejects ``temperature`` with HTTP 400 (even 1.0)
            and the SDK no longer has the argument; a number is sent in the request body for
            older API versions and compatible proxies that still accept it.
        timeout: seconds per HTTP request.
        max_retries: SDK retries on connection errors, 408/409/429 and 5xx.
        base_url: the API root; ``None`` for the SDK default (``ANTHROPIC_BASE_URL`` or
            api.anthropic.com).
        concurrency: requests in flight at once (threads); 1 sends them one after another.
    """

    kind = "anthropic_chat"
    service = "Anthropic"

    def _client(self, key: str):
        from anthropic import Anthropic

        return Anthropic(api_key=key, base_url=self.base_url, timeout=self.timeout, max_retries=self.max_retries)

    def _stream(self, client, request: GenerationRequest) -> Generation:
        system, messages = split_system(request.messages)
        optional: dict[str, Any] = {}
        if system is not None:
            optional["system"] = system
        if self.temperature is not None:
            optional["extra_body"] = {"temperature": self.temperature}
        start = time.perf_counter()
        stream = client.messages.create(model=self.model, messages=messages, max_tokens=self.max_tokens,
                                        stream=True, **optional)
        parts: list[str] = []
        ttft = input_tokens = output_tokens = stop_reason = None
        with stream:
            for event in stream:
                if event.type == "message_start":
                    usage = event.message.usage
                    input_tokens = _total_input(usage)
                    output_tokens = getattr(usage, "output_tokens", None)
                elif event.type == "content_block_delta" and event.delta.type == "text_delta":
                    if event.delta.text:
                        if ttft is None:
                            ttft = time.perf_counter() - start
                        parts.append(event.delta.text)
                elif event.type == "message_delta":
                    output_tokens = getattr(event.usage, "output_tokens", None) or output_tokens
                    if getattr(event.usage, "input_tokens", None) is not None:
                        input_tokens = _total_input(event.usage)  # cumulative when present
                    stop_reason = getattr(event.delta, "stop_reason", None) or stop_reason
        latency = time.perf_counter() - start
        if not parts and stop_reason is None:
            raise UnparsableReplyError("the reply held no content_block_delta with text or a stop_reason")
        return Generation(text="".join(parts), input_tokens=input_tokens, output_tokens=output_tokens,
                          ttft_seconds=ttft, latency_seconds=latency,
                          extra={"stop_reason": stop_reason} if stop_reason else {})


def _total_input(usage) -> int | None:
    base = getattr(usage, "input_tokens", None)
    if base is None:
        return None
    cached = (getattr(usage, "cache_creation_input_tokens", None) or 0) + \
        (getattr(usage, "cache_read_input_tokens", None) or 0)
    return base + cached
