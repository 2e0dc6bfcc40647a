"""A judge on Anthropic's Messages API, with the seeds' model aliases (claude-haiku...)."""

from __future__ import annotations

from typing import Any

from harness.generators.anthropic_chat import split_system
from harness.judges.api import ApiJudge


class AnthropicJudge(ApiJudge):
    """``messages.create`` through the ``anthropic`` SDK (see :class:`~harness.judges.api.ApiJudge`).

    ``temperature: null`` (the default) sends no sampling parameter: API version 2026-10-21, the
    default of SDK 2.x, rejects ``temperature`` and the SDK no longer has the argument; a number
    is sent in the request body for older API versions and compatible proxies. With null the API
    samples, so ``samples > 1`` is allowed.
    """

    kind = "anthropic"
    service = "Anthropic"
    samples_by_default = True

    def _client(self, key: str):
        from anthropic import Anthropic

        return Anthropic(api_key=key, base_url=self.base_url, timeout=self.timeout, max_retries=self.max_retries)

    def _ask(self, client, messages: tuple[dict[str, str], ...], schema: dict[str, Any] | None) -> str:
        # The Messages API has no response_format: the schema is not sent (structured_output has no effect).
        system, rest = split_system(messages)
        optional: dict[str, Any] = {}
        if system is not None:
            optional["system"] = system
        if self.temperature is not None:
            optional["extra_body"] = {"temperature": self.temperature}
        response = client.messages.create(model=self.model, messages=rest, max_tokens=self.max_tokens, **optional)
        texts = [block.text for block in response.content if getattr(block, "type", None) == "text"]
        if not texts:
            raise ValueError(f"the response has no text (stop_reason={response.stop_reason})")
        return "".join(texts)
