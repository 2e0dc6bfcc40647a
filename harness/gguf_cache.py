"""GGUF models de-quantized once per machine, not once per process.

transformers reads a GGUF file by de-quantizing every tensor and rebuilding the tokenizer from
its metadata: for the embedded SmolLM2-135M that costs about 25 s of CPU, in every process that
loads it (each job of a Ray or joblib sweep, each test that starts the CLI). The result, written
once with ``save_pretrained`` (float32 safetensors, tokenizer, config) into a checksummed cache
entry keyed by the GGUF file's content hash and the transformers version, loads in about a second
with the same weights and the same tokenizer. An entry whose files do not match their checksums
is never used: it is rebuilt from the GGUF file.

Where: ``$HARNESS_MODEL_CACHE`` (default ``~/.cache/harness/models``); ``HARNESS_MODEL_CACHE=off``
reads the GGUF file every time.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path

from harness.cache import Codec, DiskCache, content_key

log = logging.getLogger(__name__)

ENV = "HARNESS_MODEL_CACHE"
NAMESPACE = "gguf-dequantized"


def cache_root() -> Path | None:
    """The model cache folder, or None when ``$HARNESS_MODEL_CACHE`` is ``off``."""
    value = os.environ.get(ENV, "").strip()
    if value.lower() == "off":
        return None
    return Path(value).expanduser() if value else Path.home() / ".cache" / "harness" / "models"


def load_gguf(folder: str, gguf_file: str):
    """(tokenizer, float32 model) of ``folder/gguf_file``, from the de-quantized cache when an
    intact entry exists, else from the GGUF file (and then stored)."""
    root = cache_root()
    if root is None:
        return _from_gguf(folder, gguf_file)
    return DiskCache(root).get_or_build(NAMESPACE, entry_key(folder, gguf_file),
                                        lambda: _from_gguf(folder, gguf_file), _PRETRAINED)


def entry_key(folder: str, gguf_file: str) -> str:
    """The cache key of ``folder/gguf_file``: its content hash and the transformers version."""
    import transformers

    from harness.models import model_fingerprint

    return content_key(model_fingerprint(str(Path(folder) / gguf_file)), transformers.__version__)


def _from_gguf(folder: str, gguf_file: str):
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    log.info("de-quantizing %s (once per machine: $%s)", gguf_file, ENV)
    tokenizer = AutoTokenizer.from_pretrained(folder, gguf_file=gguf_file)
    model = AutoModelForCausalLM.from_pretrained(folder, gguf_file=gguf_file, dtype=torch.float32)
    return tokenizer, model


def _save(value, target: Path) -> None:
    from safetensors.torch import save_model

    tokenizer, model = value
    tokenizer.save_pretrained(target)
    # save_pretrained refuses a model transformers marks as GGUF-quantized, although its weights
    # are plain float32 tensors by now: the config and the tensors are written as it would.
    model.config.save_pretrained(target)
    if model.generation_config is not None:
        model.generation_config.save_pretrained(target)
    save_model(model, str(target / "model.safetensors"), metadata={"format": "pt"})


def _load(target: Path):
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    return (AutoTokenizer.from_pretrained(target),
            AutoModelForCausalLM.from_pretrained(target, dtype=torch.float32))


_PRETRAINED = Codec(_save, _load)
