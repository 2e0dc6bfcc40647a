"""Few-shot alignment of a prompt rubric: K labelled examples written into its prompt, and the
rubric's agreement with people before and after, on held-out questions.

Examples are the run's own answered questions (question, answer, gold answers, contexts: what
``per_question.jsonl`` holds), each shown as the rubric's rendered prompt followed by the reply
the rubric expects: the human label mapped linearly from the label scale onto the rubric's score
scale (for a judge that reads candidate replies, e.g. ``answer_score``'s yes/no for the local
judge, the reply whose value is nearest). Which K: the rule of :func:`pick_examples`, from the
training folds only; the held-out folds are then judged with that prompt, so no judged question
is among its own examples. Only single-score rubrics with ``output: number`` are supported (a
JSON reply would need the reasoning text people did not write).
"""

from __future__ import annotations

import copy
from typing import Any

from harness.human.table import RunTable
from harness.judges.items import JudgeItem
from harness.metaeval.settings import Scale


def items_from_table(table: RunTable, question_ids: list[str]) -> dict[str, JudgeItem]:
    """The with-context item of each answered question among ``question_ids``, rebuilt from its row."""
    items = {}
    for qid in question_ids:
        row = table.by_id[qid]
        if not isinstance(row.get("answer"), str) or row.get("answer_error"):
            continue
        golds = [str(g) for g in row.get("gold_answers") or []]
        ground_truth = " | ".join(golds) or None
        contexts = row.get("contexts")
        items[qid] = JudgeItem(question_id=qid, target="with_context", question=str(row.get("question") or ""),
                               answer=row["answer"], ground_truth=ground_truth,
                               expected_answer=row.get("expected_answer") or ground_truth,
                               contexts=None if contexts is None else tuple(("", str(t)) for t in contexts),
                               gold_rank=row.get("gold_rank"))
    return items


def pick_examples(labels: dict[str, float], pool: list[str], k: int) -> list[str]:
    """K questions of ``pool`` spread over its label range: the pool sorted by (label, question
    id), then the questions at ranks ``round(i * (n - 1) / (k - 1))`` for i = 0..k-1 (the lowest,
    the highest and evenly between; k = 1: the median).

    >>> pick_examples({"a": 1, "b": 5, "c": 3, "d": 2, "e": 4}, ["a", "b", "c", "d", "e"], 3)
    ['a', 'c', 'b']
    """
    ranked = sorted(pool, key=lambda q: (labels[q], q))
    if k < 1 or k > len(ranked):
        raise ValueError(f"--few-shot {k}: needs 1 to {len(ranked)} examples from the training folds")
    if k == 1:
        return [ranked[(len(ranked) - 1) // 2]]
    ranks = sorted({round(i * (len(ranked) - 1) / (k - 1)) for i in range(k)})
    return [ranked[r] for r in ranks]


def _escape(text: str) -> str:
    """Literal text inside a prompt template (rubric prompts are str.format templates)."""
    return text.replace("{", "{{").replace("}", "}}")


def with_examples(config: dict[str, Any], rubric, examples: list[tuple[JudgeItem, float]], scale: Scale,
                  column: str) -> dict[str, Any]:
    """A copy of the rubric's config whose prompts (``messages``, and ``local.messages`` when set)
    begin with one user/assistant exchange per example; its column is ``column``."""
    if getattr(rubric, "output", None) != "number" or len(getattr(rubric, "scales", {})) != 1:
        raise ValueError(f"rubric {rubric.column}: few-shot alignment needs a single-score rubric with output: number")
    [(field, (low, high))] = rubric.scales.items()
    new = copy.deepcopy(config)
    new["column"] = column

    def turns(messages, reply) -> list[dict[str, str]]:
        out = []
        for item, label in examples:
            rendered = rubric.render(messages, rubric.item_values(item))
            out += [{"role": m["role"], "content": _escape(m["content"])} for m in rendered if m["role"] == "user"]
            out.append({"role": "assistant", "content": _escape(reply(low + (label - scale.low) * (high - low)
                                                                      / (scale.high - scale.low)))})
        return out

    def prompt(messages, reply) -> list[dict[str, str]]:
        system = [dict(m) for m in messages if m["role"] == "system"]
        return system + turns(messages, reply) + [dict(m) for m in messages if m["role"] != "system"]

    new["messages"] = prompt(rubric.messages, lambda score: str(int(round(score))))
    if (config.get("local") or {}).get("messages") or rubric.local_replies:
        replies = rubric.local_replies.get(field)

        def nearest(score: float) -> str:
            if not replies:
                return str(int(round(score)))
            return min(replies, key=lambda entry: abs(entry[0] - score))[1][0]

        new.setdefault("local", {})["messages"] = prompt(rubric.local_messages, nearest)
    return new
