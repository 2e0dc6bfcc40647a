"""What a rubric judges: one question's answer (with or without context) or its retrieved chunks."""

from __future__ import annotations

from dataclasses import dataclass

from harness.generators.base import FAILED_AS_MISS

# with_context: the answer generated from the retrieved chunks; no_context: seed 004's baseline
# answer from the model alone; retrieval: the retrieved chunks themselves (seeds 000 and 002).
TARGETS = ("with_context", "no_context", "retrieval")


@dataclass(frozen=True)
class JudgeItem:
    """The values a rubric's placeholders can take for one question and target.

    ``missing`` is set when the item should be judged but cannot be (its generation failed).
    """

    question_id: str
    target: str
    question: str
    answer: str | None
    ground_truth: str | None
    expected_answer: str | None
    contexts: tuple[tuple[str, str], ...] | None   # (title, text) in rank order; None: unknown
    gold_rank: int | None
    missing: str | None = None


def item_for(record, target: str) -> JudgeItem | None:
    """The item for ``record`` (a QuestionRecord) under ``target``, or None when the target does
    not apply (the question was not sampled for answering, or that condition did not run).

    A with-context answer is judged against the chunks its prompt held (``record.prompt_chunks``).
    """
    if target not in TARGETS:
        raise ValueError(f"unknown judging target {target!r}; choose from {list(TARGETS)}")
    question = record.question
    ground_truth = question.ground_truth or (" | ".join(question.answers) if question.answers else None)
    common = dict(question_id=question.id, target=target, question=question.text, ground_truth=ground_truth,
                  expected_answer=question.expected_answer or ground_truth, gold_rank=record.gold_rank())
    chunks = tuple((chunk.title, chunk.text) for chunk in record.chunks)
    if target == "retrieval":
        return JudgeItem(answer=None, contexts=chunks, **common)
    generation = record.generation if target == "with_context" else record.baseline
    if generation is None:
        return None
    if target == "no_context":
        shown: tuple[tuple[str, str], ...] | None = ()
    elif generation.contexts is not None:  # a generator that brought its own retrieval
        shown = tuple(("", text) for text in generation.contexts)
    elif generation.contexts_unknown:  # ...but did not say what it retrieved
        shown = None
    else:
        shown = tuple((chunk.title, chunk.text) for chunk in record.prompt_chunks)
    # a failed answer scored as a miss (on_failure: miss) is judged as what it is: an empty answer
    failed = generation.failed and not generation.extra.get(FAILED_AS_MISS)
    missing = f"no answer to judge: generation failed ({generation.error})" if failed else None
    return JudgeItem(answer=generation.text, contexts=shown, missing=missing, **common)
