"""Token log-probabilities of a fixed continuation after a prompt, read from a causal LM.

The likelihood rubrics (BARTScore/GPTScore manner) score a text by how probable the model finds a
fixed continuation of it: the gold answer after the candidate answer, the answer after its
contexts. One forward pass per batch gives every token's log-probability: prompt and
continuation are tokenized separately (so the continuation's tokens do not depend on the
prompt's last characters) and concatenated, left-padded (position ids as if unpadded), so every
continuation ends at the last position and only the last ``max continuation + 1`` positions'
logits are computed; the logit before each continuation token predicts it.
"""

from __future__ import annotations


def continuation_log_probs(tokenizer, model, prompts: list[str], continuations: list[str],
                           max_tokens: int | None = None) -> list[list[float]]:
    """Per token of ``continuations[i]``, its log-probability after ``prompts[i]`` (natural log).

    Args:
        tokenizer: the model's tokenizer.
        model: a transformers causal LM.
        prompts: fully rendered prompts (chat template applied, reply start appended).
        continuations: the texts whose likelihood is read, one per prompt.
        max_tokens: the prompt is cut from the left so that prompt + continuation fit (null: no cut).

    Returns:
        one list of token log-probabilities per prompt (empty for an empty continuation).

    Example (a sketch; needs a model):
        >>> continuation_log_probs(tok, lm, ["The capital of France is"], [" Paris"])  # doctest: +SKIP
        [[-1.9]]
    """
    import torch

    if len(prompts) != len(continuations):
        raise ValueError(f"{len(prompts)} prompts but {len(continuations)} continuations")
    if not prompts:
        return []
    rows = []
    for prompt, continuation in zip(prompts, continuations):
        head = tokenizer(prompt, add_special_tokens=False)["input_ids"]
        tail = tokenizer(continuation, add_special_tokens=False)["input_ids"] if continuation else []
        if max_tokens is not None and len(head) + len(tail) > max_tokens:
            head = head[max(0, len(head) + len(tail) - max_tokens):]
        if not head:  # the first continuation token needs something to be predicted from
            head = [tokenizer.bos_token_id if tokenizer.bos_token_id is not None else tokenizer.eos_token_id]
        rows.append((head, tail))
    length = max(len(h) + len(t) for h, t in rows)
    keep = max(len(t) for _, t in rows) + 1  # logits of the last positions only: memory ~ batch x keep x vocab
    pad = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else 0
    input_ids = torch.full((len(rows), length), pad, dtype=torch.long)
    attention = torch.zeros((len(rows), length), dtype=torch.long)
    for b, (head, tail) in enumerate(rows):  # left padding: every continuation ends at the last position
        ids = head + tail
        input_ids[b, length - len(ids):] = torch.tensor(ids)
        attention[b, length - len(ids):] = 1
    positions = (attention.cumsum(-1) - 1).clamp(min=0)  # as if unpadded
    with torch.no_grad():
        logits = model(input_ids=input_ids.to(model.device), attention_mask=attention.to(model.device),
                       position_ids=positions.to(model.device), logits_to_keep=keep, use_cache=False).logits
    log_probs = torch.log_softmax(logits.float(), dim=-1).cpu()  # (B, keep, V): position length - keep + i
    results = []
    for b, (_, tail) in enumerate(rows):
        # token k of the tail sits at length - len(tail) + k and is predicted by the position before it
        predictors = torch.arange(keep - 1 - len(tail), keep - 1)
        results.append(log_probs[b, predictors, torch.tensor(tail, dtype=torch.long)].tolist() if tail else [])
    return results
