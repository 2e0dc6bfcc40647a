"""Exact probabilities of a fixed set of candidate replies, read from a causal LM in one pass.

A judge score such as ``10`` may span several tokens (``1`` then ``0``), and ``1`` is a prefix of
``10``. The probability that the model's reply *is* the candidate ``c`` (and not a longer number
or word that starts with it) is

    P(c) = prod_k P(t_k | prompt, t_<k) x (1 - sum_{x extends c} P(x | prompt, c))

where ``t_1..t_n`` are c's tokens and the extending tokens are those that continue the same word
or number (a token starting with a digit after a digit, with a letter after a letter).

Every factor is read from a single forward pass per batch: the candidates' token paths form a
trie whose nodes are appended after the prompt, each node attending to the prompt and to its own
ancestors only (a "tree attention" mask, passed to the model as a custom 4D mask with explicit
position ids). This replaces one forward pass per candidate over the whole prompt (11 passes for
a 0-10 scale) with one, which matters on a CPU; a test checks it against the naive computation.
"""

from __future__ import annotations

import math
from dataclasses import dataclass


class TokenBoundaryError(ValueError):
    """A candidate does not tokenize as a plain continuation of the prompt."""


@dataclass(frozen=True)
class _Row:
    prompt: tuple[int, ...]
    paths: tuple[tuple[int, ...], ...]     # each candidate's tokens after the prompt
    nodes: tuple[tuple[int, ...], ...]     # trie nodes: every non-empty prefix of a path


def candidate_probabilities(tokenizer, model, texts: list[str], candidates: list[str]) -> list[list[float]]:
    """For each prompt text, the probability of each candidate reply (unnormalised, in [0, 1]).

    Args:
        tokenizer: the model's tokenizer.
        model: a transformers causal LM that accepts a custom 4D attention mask.
        texts: fully rendered prompts (chat template applied, assistant prefix appended).
        candidates: the replies to score, e.g. ``["0", "1", ..., "10"]`` or ``["yes", "Yes", "no"]``.

    Returns:
        ``probabilities[i][j]`` = P(reply to ``texts[i]`` is exactly ``candidates[j]``).
    """
    import torch

    if not texts:
        return []
    if not candidates or any(not c for c in candidates):
        raise ValueError(f"candidates must be non-empty strings, got {candidates!r}")
    rows = [_row(tokenizer, text, candidates) for text in texts]
    width = max(len(row.nodes) for row in rows)
    length = max(len(row.prompt) for row in rows) + width
    pad = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else 0
    dtype = next(model.parameters()).dtype
    blocked = torch.finfo(dtype).min

    input_ids = torch.full((len(rows), length), pad, dtype=torch.long)
    positions = torch.zeros((len(rows), length), dtype=torch.long)
    allowed = torch.zeros((len(rows), length, length), dtype=torch.bool)
    for b, row in enumerate(rows):
        start = length - width - len(row.prompt)   # left padding before the prompt
        tree = length - width                      # first trie node
        n = len(row.prompt)
        input_ids[b, start:tree] = torch.tensor(row.prompt)
        positions[b, start:tree] = torch.arange(n)
        allowed[b, start:tree, start:tree] = torch.tril(torch.ones(n, n, dtype=torch.bool))
        index = {node: tree + i for i, node in enumerate(row.nodes)}
        for node, q in index.items():
            input_ids[b, q] = node[-1]
            positions[b, q] = n + len(node) - 1
            allowed[b, q, start:tree] = True
            for depth in range(1, len(node) + 1):
                allowed[b, q, index[node[:depth]]] = True
        for q in range(length):  # padding attends to itself only, so no row is fully masked
            if not allowed[b, q].any():
                allowed[b, q, q] = True
    mask = torch.zeros((len(rows), 1, length, length), dtype=dtype)
    mask.masked_fill_(~allowed.unsqueeze(1), blocked)

    device = model.device
    with torch.no_grad():
        out = model(input_ids=input_ids.to(device), attention_mask=mask.to(device),
                    position_ids=positions.to(device), logits_to_keep=width + 1, use_cache=False)
    log_probs = torch.log_softmax(out.logits.float(), dim=-1).cpu()  # (B, width + 1, V)

    digits, letters = _extenders(tokenizer, log_probs.shape[-1])
    results = []
    for b, row in enumerate(rows):
        after = {(): log_probs[b, 0]}
        after.update({node: log_probs[b, 1 + i] for i, node in enumerate(row.nodes)})
        probabilities = []
        for candidate, path in zip(candidates, row.paths):
            log_p = sum(float(after[path[:k]][path[k]]) for k in range(len(path)))
            extend = digits if candidate[-1].isdigit() else letters if candidate[-1].isalpha() else None
            stop = 1.0
            if extend is not None:
                stop = max(0.0, 1.0 - float(after[path][extend].exp().sum()))
            probabilities.append(math.exp(log_p) * stop)
        results.append(probabilities)
    return results


def _row(tokenizer, text: str, candidates: list[str]) -> _Row:
    prompt = tuple(tokenizer(text, add_special_tokens=False)["input_ids"])
    paths = []
    for candidate in candidates:
        full = tuple(tokenizer(text + candidate, add_special_tokens=False)["input_ids"])
        if full[:len(prompt)] != prompt or len(full) == len(prompt):
            raise TokenBoundaryError(
                f"candidate {candidate!r} merges with the end of the prompt when tokenized "
                f"(prompt ends with {text[-20:]!r}); end the rubric's local prefix with a character "
                f"that does not merge, e.g. a space after ':'")
        paths.append(full[len(prompt):])
    nodes = list(dict.fromkeys(path[:k] for path in paths for k in range(1, len(path) + 1)))
    return _Row(prompt=prompt, paths=tuple(paths), nodes=tuple(nodes))


# tokenizer id -> (digit-initial ids, letter-initial ids); a tokenizer's vocabulary never changes.
_EXTENDERS: dict[int, tuple] = {}


def _extenders(tokenizer, vocab_size: int):
    """Token ids whose text starts with a digit, and with a letter (they would extend a number or word)."""
    import torch

    key = id(tokenizer)
    if key not in _EXTENDERS:
        texts = tokenizer.batch_decode([[i] for i in range(min(vocab_size, len(tokenizer)))])
        digits = [i for i, text in enumerate(texts) if text[:1].isdigit()]
        letters = [i for i, text in enumerate(texts) if text[:1].isalpha()]
        _EXTENDERS[key] = (torch.tensor(digits, dtype=torch.long), torch.tensor(letters, dtype=torch.long))
    return _EXTENDERS[key]
