"""An OpenAI-compatible chat model as a reranker (``reranker=api``): pointwise grades or listwise windows.

- ``pointwise``: one request per (query, passage); the reply's first integer in the configured
  grade range is the score. A query with any unparsable or failed reply fails as a whole.
- ``listwise`` (RankGPT, Sun et al. 2023): a window of passages, numbered ``[1]..[n]``, is ranked in
  one request ("[2] > [1] > ..."); the window slides from the bottom of the list to the top by
  ``step``, so the best passages bubble up. Identifiers the reply leaves out keep their order
  after the ones it ranks; a reply that names none is a failure. Scores are ``n - final rank``.

The key is read from the environment variable ``api_key_env`` names at each call, never stored,
logged or hashed; a failed call leaves that query's first-stage order and is counted with its reason
(see :class:`~harness.rerankers.base.Reranker`). Retries are the ``openai`` SDK's own.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from harness.config.schemas.choices import ApiRerankMode
from harness.config.secrets import redact_text
from harness.generators.api import api_key_from_env, check_decoding_args, describe_error
from harness.generators.pricing import PriceTable
from harness.progress import map_with_progress
from harness.rerankers.base import QueryScores, Reranker

_IDENTIFIER = re.compile(r"\[(\d+)\]")
_INTEGER = re.compile(r"-?\d+")


class ApiReranker(Reranker):
    """Args (besides :class:`~harness.rerankers.base.Reranker`'s):
        model, base_url, api_key_env, max_tokens, temperature, timeout, max_retries, concurrency: the
            chat API client, as for ``judge=openai``.
        mode: ``pointwise`` or ``listwise``.
        pointwise: ``{prompt, low, high}``: a user message with ``{query}`` and ``{passage}``, and the
            grade range a reply must fall in.
        listwise: ``{system, prompt, window, step}``: the prompt has ``{query}``, ``{passages}`` (the
            numbered window) and ``{count}``.
        prices: ``{model: {input, output}}`` in dollars per million tokens; ``price_as`` names the row
            billed (null: no cost).
    """

    def __init__(self, model: str, api_key_env: str, max_tokens: int, temperature: float | None, timeout: float,
                 max_retries: int, concurrency: int, mode: str, pointwise: Mapping[str, Any],
                 listwise: Mapping[str, Any], prices: Mapping[str, Any], price_as: str | None = None,
                 base_url: str | None = None, **common: Any) -> None:
        super().__init__(**common)
        if not api_key_env:
            raise ValueError("reranker.api_key_env must name an environment variable")
        check_decoding_args(max_tokens, temperature, timeout, max_retries, concurrency)
        self.model, self.base_url, self.api_key_env = model, base_url, api_key_env
        self.max_tokens, self.temperature, self.timeout = max_tokens, temperature, timeout
        self.max_retries, self.concurrency, self.mode = max_retries, concurrency, ApiRerankMode(mode)
        self.pointwise_reading = {"prompt": str(pointwise["prompt"]), "low": int(pointwise["low"]),
                                  "high": int(pointwise["high"])}
        self.listwise_reading = {"system": str(listwise["system"]), "prompt": str(listwise["prompt"]),
                                 "window": int(listwise["window"]), "step": int(listwise["step"])}
        if not 1 <= self.listwise_reading["step"] < self.listwise_reading["window"]:
            raise ValueError(f"reranker.listwise.step must be >= 1 and below listwise.window, got "
                             f"{self.listwise_reading['step']} and {self.listwise_reading['window']}")
        if self.pointwise_reading["low"] >= self.pointwise_reading["high"]:
            raise ValueError("reranker.pointwise.low must be below reranker.pointwise.high")
        self.prices = PriceTable(prices)
        if price_as is not None and price_as not in self.prices:
            raise ValueError(f"reranker.price_as '{price_as}' is not in the pricing table: {self.prices.models}")
        self.price_as = price_as
        self.pointwise = self.mode == ApiRerankMode.pointwise

    def __repr__(self) -> str:
        return f"ApiReranker(model={self.model!r}, base_url={self.base_url!r}, api_key_env={self.api_key_env!r})"

    def describe(self) -> str:
        return f"api:{self.model} ({self.mode})"

    def fingerprint(self) -> dict[str, Any]:
        reading = self.pointwise_reading if self.pointwise else self.listwise_reading
        return {"reranker": "api", "model": self.model, "base_url": redact_text(self.base_url),
                "temperature": self.temperature, "max_tokens": self.max_tokens, "mode": str(self.mode),
                "reading": reading, "include_title": self.include_title}

    def cost(self, input_tokens: int, output_tokens: int) -> float | None:
        return None if self.price_as is None else self.prices.cost(self.price_as, input_tokens, output_tokens)

    def score(self, items: list[tuple[str, list[str]]]) -> list[QueryScores]:
        if not items:
            return []
        try:
            key = api_key_from_env(self.api_key_env, "OpenAI-compatible")
        except Exception as err:  # noqa: BLE001 - every query fails with the reason; the run goes on
            return [QueryScores(error=str(err)) for _ in items]
        from openai import OpenAI

        with OpenAI(api_key=key, base_url=self.base_url, timeout=self.timeout, max_retries=self.max_retries) as client:
            def one(item: tuple[str, list[str]]) -> QueryScores:
                try:
                    return self._pointwise(client, *item) if self.pointwise else self._listwise(client, *item)
                except Exception as err:  # noqa: BLE001 - one failed query never stops the others
                    return QueryScores(error=describe_error(err, key))

            return map_with_progress(one, items, self.concurrency, f"reranking ({self.model})", unit="query")

    def _ask(self, client, messages: list[dict[str, str]], tokens: list[int]) -> str:
        optional = {} if self.temperature is None else {"temperature": self.temperature}
        response = client.chat.completions.create(model=self.model, messages=messages, max_tokens=self.max_tokens,
                                                  **optional)
        if response.usage is not None:
            tokens[0] += response.usage.prompt_tokens or 0
            tokens[1] += response.usage.completion_tokens or 0
        if not response.choices or response.choices[0].message.content is None:
            raise ValueError("the response has no text")
        return response.choices[0].message.content

    def _pointwise(self, client, query: str, passages: list[str]) -> QueryScores:
        reading, tokens, scores = self.pointwise_reading, [0, 0], []
        for passage in passages:
            reply = self._ask(client, [{"role": "user", "content": reading["prompt"].format(query=query,
                                                                                           passage=passage)}], tokens)
            grades = [int(g) for g in _INTEGER.findall(reply) if reading["low"] <= int(g) <= reading["high"]]
            if not grades:
                return QueryScores(error=f"unparsable grade (expected {reading['low']}-{reading['high']}): "
                                         f"{reply[:80]!r}", input_tokens=tokens[0], output_tokens=tokens[1])
            scores.append(float(grades[0]))
        return QueryScores(scores=scores, input_tokens=tokens[0], output_tokens=tokens[1])

    def _listwise(self, client, query: str, passages: list[str]) -> QueryScores:
        reading, tokens = self.listwise_reading, [0, 0]
        order = list(range(len(passages)))  # passage indices, best first
        end = len(order)
        while True:
            start = max(0, end - reading["window"])
            window = order[start:end]
            numbered = "\n".join(f"[{n}] {passages[p]}" for n, p in enumerate(window, start=1))
            reply = self._ask(client, [{"role": "system", "content": reading["system"]},
                                       {"role": "user", "content": reading["prompt"].format(
                                           query=query, passages=numbered, count=len(window))}], tokens)
            ranked = permutation(reply, len(window))
            if ranked is None:
                return QueryScores(error=f"no passage identifiers in the reply: {reply[:80]!r}",
                                   input_tokens=tokens[0], output_tokens=tokens[1])
            order[start:end] = [window[i] for i in ranked]
            if start == 0:
                break
            end -= reading["step"]
        scores = [0.0] * len(passages)
        for rank, passage in enumerate(order):
            scores[passage] = float(len(passages) - rank)
        return QueryScores(scores=scores, input_tokens=tokens[0], output_tokens=tokens[1])


def permutation(reply: str, count: int) -> list[int] | None:
    """0-based window positions in the reply's order ("[2] > [1]" -> [1, 0, ...]), the ones it leaves
    out after them in their original order; None when it names no valid identifier.

    >>> permutation("[3] > [1]", 4)
    [2, 0, 1, 3]
    """
    seen: list[int] = []
    for match in _IDENTIFIER.findall(reply):
        index = int(match) - 1
        if 0 <= index < count and index not in seen:
            seen.append(index)
    if not seen:
        return None
    return seen + [i for i in range(count) if i not in seen]
