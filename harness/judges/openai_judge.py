"""A judge on any OpenAI-compatible chat endpoint: OpenAI, vLLM, Ollama, llama.cpp's server."""

from __future__ import annotations

from typing import Any

from harness.judges.api import ApiJudge


class OpenAIJudge(ApiJudge):
    """``chat.completions`` through the ``openai`` SDK (see :class:`~harness.judges.api.ApiJudge`)."""

    kind = "openai"
    service = "OpenAI-compatible"

    def _client(self, key: str):
        from openai import OpenAI

        return OpenAI(api_key=key, base_url=self.base_url, timeout=self.timeout, max_retries=self.max_retries)

    def _ask(self, client, messages: tuple[dict[str, str], ...], schema: dict[str, Any] | None) -> str:
        optional: dict[str, Any] = {} if self.temperature is None else {"temperature": self.temperature}
        if schema is not None:  # OpenAI's structured outputs; vLLM and llama.cpp's server read it too
            optional["response_format"] = {"type": "json_schema",
                                           "json_schema": {"name": "judgement", "schema": schema, "strict": True}}
        response = client.chat.completions.create(model=self.model, messages=list(messages),
                                                  max_tokens=self.max_tokens, **optional)
        if not response.choices:
            raise ValueError("the response has no choices")
        content = response.choices[0].message.content
        if content is None:
            raise ValueError(f"the response has no text (finish_reason={response.choices[0].finish_reason})")
        return content
