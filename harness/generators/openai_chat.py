"""Answers from any OpenAI-compatible chat endpoint: OpenAI, vLLM, Ollama, llama.cpp's server.

Every request is streamed so the time to first token can be measured on the client (seed 003,
section 9): TTFT runs from sending the request to the first chunk that carries answer text, the
latency to the end of the stream. Token counts are the server's own (``stream_options`` asks for
a final usage chunk); a server that sends none leaves them ``None``.
"""

from __future__ import annotations

import time

from harness.generators.api import ApiChatGenerator, UnparsableReplyError
from harness.generators.base import Generation, GenerationRequest


class OpenAIChatGenerator(ApiChatGenerator):
    """Streams ``chat.completions`` through the ``openai`` SDK.

    Args:
        model: the model name the server knows (aliases are resolved in YAML).
        base_url: the API root, e.g. ``http://localhost:8000/v1`` for vLLM or
            ``http://localhost:11434/v1`` for Ollama; ``None`` for the SDK default
            (``OPENAI_BASE_URL`` or api.openai.com).
        api_key_env: NAME of the environment variable holding the key. It is read at the first
            ``generate()``, so configs compose and instantiate without it. Local servers that
            ignore the key still need the variable set to any non-empty value.
        max_tokens: answer length cap.
        temperature: sampling temperature; ``None`` leaves it to the server.
        timeout: seconds per HTTP request.
        max_retries: SDK retries on connection errors, 408/409/429 and 5xx.
        concurrency: requests in flight at once (threads); 1 sends them one after another.
    """

    kind = "openai_chat"
    service = "OpenAI-compatible"

    def _client(self, key: str):
        from openai import OpenAI

        return OpenAI(api_key=key, base_url=self.base_url, timeout=self.timeout, max_retries=self.max_retries)

    def _stream(self, client, request: GenerationRequest) -> Generation:
        optional = {} if self.temperature is None else {"temperature": self.temperature}
        start = time.perf_counter()
        stream = client.chat.completions.create(
            model=self.model, messages=list(request.messages), max_tokens=self.max_tokens,
            stream=True, stream_options={"include_usage": True}, **optional)
        parts: list[str] = []
        ttft = usage = finish_reason = None
        with stream:
            for chunk in stream:
                usage = getattr(chunk, "usage", None) or usage
                if not getattr(chunk, "choices", None):
                    continue  # the usage chunk has no choices
                choice = chunk.choices[0]
                content = getattr(getattr(choice, "delta", None), "content", None)
                if content:
                    if ttft is None:
                        ttft = time.perf_counter() - start
                    parts.append(content)
                finish_reason = getattr(choice, "finish_reason", None) or finish_reason
        latency = time.perf_counter() - start
        if not parts and finish_reason is None:
            # HTTP 200 with a body the SDK read as no chunk at all (not an event stream, or an error page).
            raise UnparsableReplyError("the reply held no chat.completion.chunk with text or a finish_reason")
        return Generation(
            text="".join(parts),
            input_tokens=getattr(usage, "prompt_tokens", None),
            output_tokens=getattr(usage, "completion_tokens", None),
            ttft_seconds=ttft,
            latency_seconds=latency,
            extra={"finish_reason": finish_reason} if finish_reason else {},
        )
