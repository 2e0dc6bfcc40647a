"""Which field of a question record holds what: the names other tools write, or a mapping in YAML.

A record may come from this harness (seed 004's schema), a RAGAS export (``user_input``,
``reference``, ``reference_contexts``), a DeepEval golden (``input``, ``expected_output``,
``context``), an MLflow evaluation dataset (``inputs``/``expectations`` objects, whose keys are
read as if they were the record's own) or FlashRAG (``question``, ``golden_answers``). Each part of
a question is looked up under the first of its names the record has, unless the dataset's
``fields`` maps it to a column (dotted paths reach into nested objects, as ``dataset=hf`` does).
"""

from __future__ import annotations

from typing import Any

from harness.data.hf import lookup

# part -> the names tried in order when ``fields`` does not map it.
ALIASES: dict[str, tuple[str, ...]] = {
    "question": ("question", "user_input", "input", "query"),
    "answers": ("ground_truth", "answer", "answers", "reference", "expected_response", "expected_output",
                "golden_answers"),
    "id": ("id", "question_id", "qid"),
    "relevant": ("needle_doc_id", "needle_doc_ids", "gold_doc_ids", "gold_doc_id", "relevant_doc_ids",
                 "doc_ids"),
    "contexts": ("reference_contexts", "context", "expected_retrieved_context", "gold_contexts"),
    "key_facts": ("key_facts", "expected_facts"),
}
# Objects whose keys count as the record's own (MLflow's evaluation dataset records).
NESTED = ("inputs", "expectations")


def flatten(record: dict[str, Any]) -> dict[str, Any]:
    """The record with the keys of its ``inputs``/``expectations`` objects beside its own (its own win;
    the objects stay, for a mapping's dotted paths)."""
    flat = dict(record)
    for name in NESTED:
        nested = record.get(name)
        if isinstance(nested, dict) and all(isinstance(key, str) for key in nested):
            for key, value in nested.items():
                flat.setdefault(key, value)
    return flat


def find(record: dict[str, Any], part: str, fields: dict[str, str | None]) -> tuple[str | None, Any]:
    """(the name it was found under, the value) of ``part``; (None, None) when the record has none.

    Example:
        >>> find({"user_input": "Why?", "reference": "Because."}, "answers", {})
        ('reference', 'Because.')
        >>> find({"q": {"text": "Why?"}}, "question", {"question": "q.text"})
        ('q.text', 'Why?')
    """
    mapped = fields.get(part)
    if mapped is not None:
        value = lookup(record, mapped)
        return (mapped, value) if value is not None else (None, None)
    for name in ALIASES[part]:
        if record.get(name) is not None:
            return name, record[name]
    return None, None


def find_all(record: dict[str, Any], part: str, fields: dict[str, str | None]) -> list[tuple[str, Any]]:
    """Every (name, value) of ``part`` the record has: gold ids may come under several names at once
    (``needle_doc_id`` and ``needle_doc_ids``)."""
    mapped = fields.get(part)
    if mapped is not None:
        value = lookup(record, mapped)
        return [] if value is None else [(mapped, value)]
    return [(name, record[name]) for name in ALIASES[part] if record.get(name) is not None]


def used_names(record: dict[str, Any], fields: dict[str, str | None]) -> set[str]:
    """The record's top-level keys that some part was read from (the others become metadata)."""
    names = set()
    for part in ALIASES:
        names.update(name.split(".")[0] for name, _ in find_all(record, part, fields))
    return names
