"""What the API judges share: keys from the environment, timeouts, retries, concurrency.

Retries are the SDKs' own (``openai`` and ``anthropic`` alike): on connection errors, timeouts,
408/409/429 and 5xx they wait ``0.5 s x 2^n`` (at most 8 s, minus up to 25 % jitter), or the
server's ``retry-after`` when it sends one, up to ``max_retries`` times; the tests run them
against a local server answering 429 or 503 first. ``timeout`` bounds each HTTP attempt.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Mapping
from typing import Any

from harness.config.secrets import redact_text
from harness.failures import check_fraction
from harness.generators.api import api_key_from_env, check_decoding_args, describe_error
from harness.judges.base import Judge, JudgePrompt, Reply
from harness.judges.selfcheck import SelfCheckSettings
from harness.progress import map_with_progress


class ApiJudge(Judge):
    """A chat API judge: one non-streamed request per prompt (the prefix is not sent).

    Args:
        model: a model id, or an alias from ``aliases``.
        api_key_env: NAME of the environment variable holding the key; read at each call, never
            stored, never part of the cache key or of any logged value.
        max_tokens: reply length cap.
        temperature: 0 for a deterministic judge; null sends none (the API's default).
        timeout: seconds per HTTP attempt.
        max_retries: SDK retries with exponential backoff on timeouts, 429 and 5xx.
        base_url: the API root (``http://localhost:8000/v1`` for vLLM...), or null for the SDK default.
        concurrency: requests in flight at once.
        samples: judgements per item (needs temperature > 0, or null where the API samples by default).
        cache: ``on``, ``refresh`` or ``off``.
        aliases: ``{alias: model id}``, e.g. the seeds' ``claude-haiku``.
        selfcheck: ``{enabled, pairs, min_auc, contexts}`` (:mod:`harness.judges.selfcheck`), or null.
        structured_output: send a rubric's reply schema as ``response_format`` (JSON schema) where
            it has one (``output: json`` rubrics); servers with structured output (OpenAI, vLLM,
            llama.cpp's server) then only write replies that parse; others ignore it or refuse it.
    """

    kind = "api"
    service = "API"
    samples_by_default = False  # does temperature=null sample?

    def __init__(self, *, model: str, api_key_env: str, max_tokens: int, temperature: float | None,
                 timeout: float, max_retries: int, base_url: str | None = None, concurrency: int = 1,
                 samples: int = 1, cache: str = "on", seed: int = 0,
                 aliases: Mapping[str, str] | None = None, selfcheck: Mapping[str, Any] | None = None,
                 max_failed_fraction: float = 0.5, structured_output: bool = False) -> None:
        if not api_key_env:
            raise ValueError("judge.api_key_env must name an environment variable")
        check_decoding_args(max_tokens, temperature, timeout, max_retries, concurrency)
        self.check_sampling(samples, temperature, cache, default_samples=self.samples_by_default)
        self.aliases = dict(aliases or {})
        self.model = self.aliases.get(model, model)
        self.base_url, self.api_key_env = base_url, api_key_env
        self.max_tokens, self.temperature = max_tokens, temperature
        self.timeout, self.max_retries, self.concurrency = timeout, max_retries, concurrency
        self.samples, self.cache, self.seed = samples, cache, seed
        self.selfcheck = SelfCheckSettings.from_config(selfcheck, seed)
        self.max_failed_fraction = check_fraction("judge.max_failed_fraction", max_failed_fraction)
        self.structured_output = structured_output

    def __repr__(self) -> str:
        return f"{type(self).__name__}(model={self.model!r}, base_url={self.base_url!r}, api_key_env={self.api_key_env!r})"

    def fingerprint(self) -> dict[str, Any]:
        found = {"judge": self.kind, "model": self.model, "base_url": redact_text(self.base_url),
                 "max_tokens": self.max_tokens, "temperature": self.temperature, "samples": self.samples}
        if self.structured_output:  # constrained replies differ; unconstrained keys stay as they were
            found["structured_output"] = True
        return found

    def describe(self) -> str:
        return f"{self.kind}:{self.model}"

    def complete(self, prompts: list[JudgePrompt], sample: int = 0) -> list[Reply]:
        if not prompts:
            return []
        try:
            key = api_key_from_env(self.api_key_env, self.service)
        except Exception as err:  # every item is missing with the reason; the run goes on
            return [Reply(error=str(err)) for _ in prompts]
        with self._client(key) as client:
            def ask(prompt: JudgePrompt) -> Reply:
                try:
                    schema = prompt.schema if self.structured_output else None
                    return Reply(text=self._ask(client, prompt.messages, schema))
                except Exception as err:  # one failed request never stops the others
                    return Reply(error=describe_error(err, key))

            return map_with_progress(ask, prompts, self.concurrency, f"judging ({self.model})")

    @abstractmethod
    def _client(self, key: str):
        """The SDK client (a context manager), configured with timeout and max_retries."""

    @abstractmethod
    def _ask(self, client, messages: tuple[dict[str, str], ...], schema: dict[str, Any] | None) -> str:
        """The reply text of one request; ``schema``, when given, is the JSON schema it must follow."""
