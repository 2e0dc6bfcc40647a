"""The local judge: any transformers causal LM, by default the embedded SmolLM2-135M-Instruct GGUF.

Scores are read from the model's next-token distribution (:mod:`harness.judges.candidates`), so
they are deterministic and never unparsable; text (claims) is decoded greedily. The model is the
generator's own process-wide instance (:func:`harness.generators.local._load`), so a sweep that
generates and judges with SmolLM2 loads it once per precision: the judge's ``dtype: auto`` picks
bfloat16 on hardware with bfloat16 units, where the generator keeps float32 (greedy text is
sensitive to rounding; scores read from probabilities are not: Pearson 0.9999 on QAGS).
"""

from __future__ import annotations

import logging
from pathlib import Path
from collections.abc import Mapping
from typing import Any

import numpy as np

from harness.cache import content_key
from harness.failures import check_fraction
from harness.generators.local import _eos_ids, _load, _until_eos
from harness.judges.base import Judge, JudgePrompt, Reply
from harness.judges.candidates import candidate_probabilities
from harness.judges.likelihood import continuation_log_probs
from harness.judges.selfcheck import SelfCheckSettings
from harness.models import installed_path, model_fingerprint, resolve_dtype
from harness.progress import progress

log = logging.getLogger(__name__)


class LocalJudge(Judge):
    """Args:
        model: Hugging Face id or local folder.
        gguf_file: a GGUF file inside ``model``, or null.
        device: ``auto``, ``cpu``, ``cuda``...
        dtype: torch dtype name, or ``auto`` (bfloat16 where the hardware has bfloat16 units, else float32).
        batch_size: prompts per forward pass.
        max_new_tokens: length cap of generated text (claim lists).
        temperature: 0 reads the expected score and decodes greedily; > 0 (with ``samples`` > 1)
            draws each sample's score from the distribution tempered by it, and samples text.
        samples: judgements per item; their spread measures the judge's consistency.
        seed: seeds the draws (each item and sample gets its own stream, so results do not
            depend on batching or order).
        cache: ``on``, ``refresh`` or ``off`` (see :class:`~harness.judges.base.Judge`).
        selfcheck: ``{enabled, pairs, min_auc, contexts}`` (:mod:`harness.judges.selfcheck`), or null.
    """

    reads_distributions = True
    reads_likelihoods = True

    def __init__(self, model: str, gguf_file: str | None, device: str = "auto", dtype: str = "float32",
                 batch_size: int = 8, max_new_tokens: int = 96, temperature: float = 0.0, samples: int = 1,
                 seed: int = 0, cache: str = "on", selfcheck: Mapping[str, Any] | None = None,
                 max_failed_fraction: float = 0.5) -> None:
        if batch_size < 1 or max_new_tokens < 1:
            raise ValueError(f"judge.batch_size and judge.max_new_tokens must be >= 1, got {batch_size}, "
                             f"{max_new_tokens}")
        self.check_sampling(samples, temperature, cache, default_samples=False)
        self.model_path, self.gguf_file = installed_path(model), gguf_file  # pkg://... in logged configs
        self.model_name = f"{Path(model).name}/{gguf_file}" if gguf_file else model
        self.device, self.dtype = device, resolve_dtype(dtype, device)  # auto: resolved here, so cache keys name it
        self.batch_size, self.max_new_tokens = batch_size, max_new_tokens
        self.temperature, self.samples, self.seed, self.cache = float(temperature), samples, seed, cache
        self.selfcheck = SelfCheckSettings.from_config(selfcheck, seed)
        self.max_failed_fraction = check_fraction("judge.max_failed_fraction", max_failed_fraction)

    def fingerprint(self) -> dict[str, Any]:
        # batch_size is left out: batching changes results only at float rounding level.
        weights = str(Path(self.model_path) / self.gguf_file) if self.gguf_file else self.model_path
        fingerprint = {"judge": "local", "model": model_fingerprint(weights), "model_name": self.model_name,
                       "dtype": self.dtype, "max_new_tokens": self.max_new_tokens,
                       "temperature": self.temperature, "samples": self.samples,
                       "reading": "candidate probabilities; greedy text"}
        if self.samples > 1:
            fingerprint["seed"] = self.seed
        return fingerprint

    def describe(self) -> str:
        return f"local:{self.model_name}"

    def _model(self):
        return _load(self.model_path, self.gguf_file, self.device, self.dtype)

    def text(self, prompt: JudgePrompt) -> str:
        tokenizer, _ = self._model()
        rendered = tokenizer.apply_chat_template(list(prompt.messages), tokenize=False, add_generation_prompt=True)
        return rendered + prompt.prefix

    def probabilities(self, prompts: list[JudgePrompt], candidates: list[str]) -> list[list[float]]:
        tokenizer, model = self._model()
        return self._batched([self.text(p) for p in prompts],
                             lambda texts, _: candidate_probabilities(tokenizer, model, texts, candidates))

    def log_likelihoods(self, prompts: list[JudgePrompt], continuations: list[str]) -> list[list[float]]:
        tokenizer, model = self._model()
        limit = getattr(model.config, "max_position_embeddings", None)
        return self._batched([self.text(p) for p in prompts],
                             lambda texts, rows: continuation_log_probs(tokenizer, model, texts,
                                                                        [continuations[i] for i in rows], limit),
                             lengths=[len(c) for c in continuations])

    def _batched(self, texts: list[str], run, lengths: list[int] | None = None) -> list:
        """``run(texts, indices)`` over batches of ``batch_size``; results in the input order."""
        # Similar lengths share a batch, so little compute goes to padding.
        extra = lengths or [0] * len(texts)
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]) + extra[i])
        results: list = [None] * len(texts)
        starts = range(0, len(order), self.batch_size)
        for first in progress(starts, len(starts), "judging"):
            batch = order[first:first + self.batch_size]
            for index, value in zip(batch, run([texts[i] for i in batch], batch)):
                results[index] = value
        return results

    def draw(self, weights: dict[float, float], prompt: JudgePrompt, sample: int) -> float:
        """One value drawn from ``weights`` tempered by ``temperature`` (p ** (1 / T), renormalised)."""
        values = list(weights)
        tempered = np.array([weights[v] for v in values]) ** (1.0 / self.temperature)
        tempered /= tempered.sum()
        stream = int(content_key(list(prompt.messages), prompt.prefix)[:16], 16)
        rng = np.random.default_rng([self.seed, sample, stream])
        return float(values[int(rng.choice(len(values), p=tempered))])

    def complete(self, prompts: list[JudgePrompt], sample: int = 0) -> list[Reply]:
        replies: list[Reply] = []
        starts = range(0, len(prompts), self.batch_size)
        for first in progress(starts, len(starts), "judging"):
            batch = prompts[first:first + self.batch_size]
            try:
                replies += self._generate(batch, sample)
            except Exception as err:  # isolate the failing prompt: retry one by one
                log.warning("judge generation failed for a batch (%s); retrying its prompts one by one", err)
                for prompt in batch:
                    try:
                        replies += self._generate([prompt], sample)
                    except Exception as single:
                        replies.append(Reply(error=f"{type(single).__name__}: {single}"))
        return replies

    def _generate(self, batch: list[JudgePrompt], sample: int) -> list[Reply]:
        import torch

        tokenizer, model = self._model()
        encoded = tokenizer([self.text(p) for p in batch], return_tensors="pt", padding=True,
                            add_special_tokens=False).to(model.device)
        options: dict[str, Any] = {"do_sample": False, "temperature": None, "top_p": None, "top_k": None}
        if self.temperature > 0 and self.samples > 1:
            options = {"do_sample": True, "temperature": self.temperature, "top_p": None, "top_k": None}
            torch.manual_seed(self.seed * 1_000_003 + sample)
        with torch.no_grad():
            output = model.generate(**encoded, max_new_tokens=self.max_new_tokens,
                                    pad_token_id=tokenizer.pad_token_id, **options)
        stop = _eos_ids(tokenizer, model) | {tokenizer.pad_token_id}
        return [Reply(text=prompt.prefix + tokenizer.decode(_until_eos(tokens, stop), skip_special_tokens=True))
                for prompt, tokens in zip(batch, output[:, encoded["input_ids"].shape[1]:].tolist())]
