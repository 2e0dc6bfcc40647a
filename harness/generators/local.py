"""Local generation with any transformers causal LM (a hub id, a folder, or a GGUF file)."""

from __future__ import annotations

import logging
import time
from functools import lru_cache, partial
from pathlib import Path
from typing import Any

from harness.generators.base import BATCH_SECONDS, BATCH_SIZE, Generation, GenerationRequest, Generator
from harness.gguf_cache import load_gguf
from harness.models import installed_path, model_fingerprint, resolve_device, resolve_dtype
from harness.progress import progress_bar

log = logging.getLogger(__name__)


class _StepClock:
    """A LogitsProcessor that timestamps decoding inside ``generate()`` (seed 003, section 9).

    Its first call happens once the prompt is processed and the first token's logits exist: that
    is the time to first token. A row's latency ends at the step where its last token appears.
    On a GPU the call comes as soon as the kernels are queued, before they ran: ``sync`` (from
    :func:`_synchronizer`) waits for them before the clock is read.
    """

    def __init__(self, start: float, rows: int, eos_ids: set[int], bar=None, sync=None) -> None:
        self.start = start
        self.sync = sync
        self.bar = bar  # a progress bar advanced once per decoding step, or None
        self.eos_ids = eos_ids
        self.ttft: float | None = None
        self.finished: list[float | None] = [None] * rows
        self.steps = 0

    def __call__(self, input_ids, scores):
        if self.sync is not None:
            self.sync()
        now = time.perf_counter() - self.start
        if self.ttft is None:
            self.ttft = now
        elif self.steps > 0:
            for row, token in enumerate(input_ids[:, -1].tolist()):
                if self.finished[row] is None and token in self.eos_ids:
                    self.finished[row] = now
        self.steps += 1
        if self.bar is not None:
            self.bar.update(1)
        return scores


class LocalGenerator(Generator):
    """Greedy decoding with a chat template, in batches, on CUDA when available.

    Args:
        model: Hugging Face id or local folder.
        gguf_file: a GGUF file inside ``model`` (transformers de-quantizes it), or null.
        max_new_tokens: answer length cap.
        batch_size: prompts decoded together (left padding). A request decoded alone gets its
            measured time to first token and latency; rows of a larger batch get none (each row
            would report the batch's shared time), but ``extra`` holds the batch's wall time and
            size, from which the generation suite derives ``seconds_per_answer_batched`` and
            ``answers_per_second``.
        device: ``auto``, ``cpu``, ``cuda``...
        dtype: torch dtype name (``float32``, ``bfloat16``, ``float16``) or ``auto``
            (:func:`harness.models.resolve_dtype`).
        price_as: the pricing-table row this model is billed as.
    """

    def __init__(self, model: str, gguf_file: str | None, max_new_tokens: int, batch_size: int,
                 device: str = "auto", dtype: str = "float32", price_as: str | None = None) -> None:
        if max_new_tokens < 1 or batch_size < 1:
            raise ValueError(f"max_new_tokens and batch_size must be >= 1, got {max_new_tokens}, {batch_size}")
        self.model_path, self.gguf_file = installed_path(model), gguf_file  # pkg://... in logged configs
        self.model = f"{Path(model).name}/{gguf_file}" if gguf_file else model
        self.max_new_tokens, self.batch_size = max_new_tokens, batch_size
        self.device, self.dtype = device, resolve_dtype(dtype, device)  # auto: resolved here, so cache keys name it
        self.price_as = price_as

    def fingerprint(self) -> dict[str, Any]:
        weights = str(Path(self.model_path) / self.gguf_file) if self.gguf_file else self.model_path
        # "timing": cached answers from before batched rows stopped reporting the batch's time as latency
        # are not reused.
        return {"generator": "local", "model": model_fingerprint(weights), "max_new_tokens": self.max_new_tokens,
                "batch_size": self.batch_size, "dtype": self.dtype, "decoding": "greedy", "timing": "per_request"}

    def count_tokens(self, text: str) -> int:
        tokenizer, _ = _load(self.model_path, self.gguf_file, self.device, self.dtype)
        return len(tokenizer(text, add_special_tokens=False)["input_ids"])

    def generate(self, requests: list[GenerationRequest]) -> list[Generation]:
        # A model that cannot load is a configuration error: fail the run once, with its reason,
        # rather than record the same failure against every question.
        _load(self.model_path, self.gguf_file, self.device, self.dtype)
        results: list[Generation] = []
        starts = range(0, len(requests), self.batch_size)
        # Counted in decoding steps (max_new_tokens per batch), so even one batch shows its ETA.
        with progress_bar(len(starts) * self.max_new_tokens, f"generating {len(requests)} answers",
                          unit="decoding step") as bar:
            for first in starts:
                results += self._generate_isolated(requests[first:first + self.batch_size], bar)
                if bar is not None:  # a batch that ended before max_new_tokens
                    bar.update(max(0, (first // self.batch_size + 1) * self.max_new_tokens - bar.n))
        return results

    def _generate_isolated(self, batch: list[GenerationRequest], bar) -> list[Generation]:
        """The batch's answers; if the batch fails, its requests one by one (each failure recorded)."""
        try:
            return self._generate_batch(batch, bar)
        except Exception as err:  # isolate the failing request: retry one by one
            if len(batch) == 1:
                return [Generation(text="", error=f"{type(err).__name__}: {err}")]
            log.warning("batch generation failed (%s); retrying its %d requests one by one", err, len(batch))
        results: list[Generation] = []
        for request in batch:
            try:
                results += self._generate_batch([request])
            except Exception as single:
                results.append(Generation(text="", error=f"{type(single).__name__}: {single}"))
        return results

    def _generate_batch(self, batch: list[GenerationRequest], bar=None) -> list[Generation]:
        import torch

        tokenizer, model = _load(self.model_path, self.gguf_file, self.device, self.dtype)
        prompts = [tokenizer.apply_chat_template(list(r.messages), tokenize=False, add_generation_prompt=True)
                   for r in batch]
        encoded = tokenizer(prompts, return_tensors="pt", padding=True, add_special_tokens=False).to(model.device)
        eos_ids = _eos_ids(tokenizer, model)
        sync = _synchronizer(model.device)
        if sync is not None:  # the prompt's copy to the device is not part of the answer's time
            sync()
        start = time.perf_counter()
        clock = _StepClock(start, len(batch), eos_ids, bar, sync)
        with torch.no_grad():
            output = model.generate(**encoded, max_new_tokens=self.max_new_tokens, do_sample=False,
                                    temperature=None, top_p=None, top_k=None,
                                    pad_token_id=tokenizer.pad_token_id, logits_processor=[clock])
        if sync is not None:
            sync()
        end = time.perf_counter() - start
        new_tokens = output[:, encoded["input_ids"].shape[1]:].tolist()
        alone = len(batch) == 1  # only then is the clock one request's latency
        generations = []
        for row, tokens in enumerate(new_tokens):
            answer = _until_eos(tokens, eos_ids | {tokenizer.pad_token_id})
            generations.append(Generation(
                text=tokenizer.decode(answer, skip_special_tokens=True).strip(),
                input_tokens=int(encoded["attention_mask"][row].sum()),
                output_tokens=len(answer),
                ttft_seconds=clock.ttft if alone else None,
                latency_seconds=(clock.finished[row] if clock.finished[row] is not None else end) if alone else None,
                extra={BATCH_SECONDS: end, BATCH_SIZE: len(batch)},
            ))
        return generations


def _synchronizer(device):
    """What waits for a device's queued work before a clock is read: ``torch.cuda.synchronize``
    on a CUDA device, None on a CPU (whose work is done when the call returns)."""
    import torch

    device = torch.device(device)
    return partial(torch.cuda.synchronize, device) if device.type == "cuda" else None


def _until_eos(tokens: list[int], stop: set[int]) -> list[int]:
    for index, token in enumerate(tokens):
        if token in stop:
            return tokens[:index]
    return tokens


def _eos_ids(tokenizer, model) -> set[int]:
    ids = model.generation_config.eos_token_id
    ids = set(ids) if isinstance(ids, list) else {ids} if ids is not None else set()
    if tokenizer.eos_token_id is not None:
        ids.add(tokenizer.eos_token_id)
    return ids


@lru_cache(maxsize=2)
def _load(model: str, gguf_file: str | None, device: str, dtype: str):
    """Tokenizer and model, loaded once per process and shared by every job of a sweep."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    resolved = resolve_device(device)
    # De-quantized GGUF weights drive some activations into float32 denormals, which x86 CPUs
    # compute about 5x slower (measured: a batch-8 decode step 2.06 s -> 0.42 s); values below
    # 1.2e-38 are noise for a language model, so flush them to zero.
    torch.set_flush_denormal(True)
    log.info("loading generator %s on %s", f"{Path(model).name}/{gguf_file}" if gguf_file else model, resolved)
    if gguf_file:  # de-quantized once per machine (harness/gguf_cache.py), then cast
        tokenizer, loaded = load_gguf(model, gguf_file)
        loaded = loaded.to(getattr(torch, dtype))
    else:
        tokenizer = AutoTokenizer.from_pretrained(model)
        loaded = AutoModelForCausalLM.from_pretrained(model, dtype=getattr(torch, dtype))
    tokenizer.padding_side = "left"
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    loaded = loaded.to(resolved)
    loaded.eval()
    return tokenizer, loaded
