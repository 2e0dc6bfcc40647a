"""Sentence vectors that BERTScore's forward pass yields at no cost, for the route suite's similarity.

A sentence-transformers model whose pipeline is the transformer, mean pooling and (optionally)
normalisation, such as the packaged all-MiniLM-L6-v2, embeds a text as the mean of its last layer's
token states over every token, [CLS] and [SEP] included, normalised. BERTScore at the model's last
layer computes those token states for every reference and candidate it encodes, and the route suite's
semantic similarity needs the same texts' sentence vectors (an answer and its reference): a second
pass through the encoder, 27 of 124 s in a profiled run of SQuAD dev's 10,570 questions. So BERTScore
leaves the pooled vector of each text it encodes here (per process, keyed by the model's fingerprint), and the
route suite takes them for the texts it finds instead of encoding them again, when its model is the
same one and pools that way. The vectors equal sentence-transformers' to float32 rounding (the batches
differ, so the last bits of sums do): tests/metrics/test_sentence_vectors.py checks within 1e-6.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

import numpy as np

from harness.models import installed_path, model_fingerprint

# Texts kept per process, the oldest dropped first: about 1.5 KB each (384 float32), so at most ~75 MB.
# The route suite wants the texts of the job BERTScore just scored (SQuAD dev: ~22,000); a text dropped
# is encoded again by sentence-transformers, never missing.
MAX_TEXTS = 50_000
_VECTORS: dict[tuple[str, str], np.ndarray] = {}
TRANSFORMER, POOLING, NORMALIZE = ("sentence_transformers.models." + name
                                   for name in ("Transformer", "Pooling", "Normalize"))


def remember(model: str, texts: list[str], vectors: np.ndarray, token_counts: list[int]) -> None:
    """Keeps ``vectors[i]``, the normalised mean of ``model``'s last-layer token states over the
    ``token_counts[i]`` tokens of ``texts[i]`` (special tokens included), unless truncation may have
    cut the text (its tokens reach the mean-pooling model's length limit) or the model does not pool so."""
    limit = mean_pooling_limit(model)
    if limit is None:
        return
    key = model_fingerprint(model)
    for text, vector, count in zip(texts, vectors, token_counts):
        if count < limit:
            _VECTORS[(key, text)] = np.array(vector, dtype=np.float32)
    while len(_VECTORS) > MAX_TEXTS:
        del _VECTORS[next(iter(_VECTORS))]


def recall(model: str, texts: list[str]) -> dict[str, np.ndarray]:
    """The kept vectors of those of ``texts`` that ``model`` has one for."""
    key = model_fingerprint(model)
    return {text: _VECTORS[(key, text)] for text in texts if (key, text) in _VECTORS}


def forget() -> None:
    """Empties the kept vectors (for tests and benchmarks)."""
    _VECTORS.clear()


@lru_cache(maxsize=None)
def mean_pooling_limit(model: str) -> int | None:
    """``max_seq_length`` of ``model`` if it is a local sentence-transformers folder whose modules are
    the transformer, mean pooling only, and optionally normalisation, with no prompt; else None."""
    folder = Path(installed_path(model))
    try:
        modules = json.loads((folder / "modules.json").read_text())
        kinds = [module["type"] for module in modules]
        if kinds not in ([TRANSFORMER, POOLING], [TRANSFORMER, POOLING, NORMALIZE]):
            return None
        pooling = json.loads((folder / modules[1]["path"] / "config.json").read_text())
        modes = {name for name, on in pooling.items() if name.startswith("pooling_mode_") and on is True}
        settings = json.loads((folder / "sentence_bert_config.json").read_text())
        prompts = folder / "config_sentence_transformers.json"
        extra = json.loads(prompts.read_text()) if prompts.is_file() else {}
    except (OSError, ValueError, KeyError, IndexError, TypeError):
        return None
    if modes != {"pooling_mode_mean_tokens"} or extra.get("prompts") or extra.get("default_prompt_name"):
        return None
    if modules[0].get("path", "") not in ("", "."):
        return None  # the transformer in a subfolder: BERTScore loads the folder itself, another model
    return int(settings["max_seq_length"]) if "max_seq_length" in settings else None
