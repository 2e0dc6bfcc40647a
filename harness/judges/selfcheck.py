"""The judge's self-check: can it tell a right answer from a wrong one on this dataset?

Before its first real item, every rubric is applied to a seeded sample of the dataset's own
questions twice: once with the question's right answer (its ``expected_answer``, a full sentence,
when it has one, else its ``ground_truth``) and once with another sampled question's right answer.
A rubric that reads contexts keeps the right answer and is given the question's own chunks, then
another question's chunks. From the pairs: the AUC of right vs wrong (scikit-learn's
``roc_auc_score``), the mean paired gap (right - wrong), how many pairs tied, and the score that
best separates right from wrong (Youden's J on the ROC: a measured ``accuracy_threshold`` for
the rubric on this dataset, in place of one set by eye). Below
``min_auc`` the rubric's columns are not evidence: the leaderboard marks them and the end-of-sweep
report says so.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from harness.judges.items import JudgeItem

TIE = 1e-9  # scores this close count as a tie (float noise of batched forward passes)


@dataclass(frozen=True)
class SelfCheckSettings:
    """``judge.selfcheck`` in YAML.

    Args:
        enabled: false skips the check.
        pairs: questions sampled (each gives one right and one wrong item).
        min_auc: below it the judge is flagged.
        contexts: chunks given per question to rubrics that read contexts.
        seed: seeds the sample.
    """

    enabled: bool = True
    pairs: int = 20
    min_auc: float = 0.75
    contexts: int = 2
    seed: int = 0

    @classmethod
    def from_config(cls, value: Mapping[str, Any] | None, seed: int = 0) -> "SelfCheckSettings":
        settings = cls(seed=seed, **dict(value)) if value is not None else cls(enabled=False, seed=seed)
        if settings.pairs < 2:
            raise ValueError(f"judge.selfcheck.pairs must be >= 2, got {settings.pairs}")
        if not 0.0 <= settings.min_auc <= 1.0:
            raise ValueError(f"judge.selfcheck.min_auc must be in [0, 1], got {settings.min_auc}")
        if settings.contexts < 1:
            raise ValueError(f"judge.selfcheck.contexts must be >= 1, got {settings.contexts}")
        return settings


@dataclass(frozen=True)
class SelfCheckResult:
    """The figures of one rubric's self-check (``auc`` None when fewer than two pairs were scored:
    then the check could not run, which flags nothing)."""

    auc: float | None
    gap: float | None
    ties: int
    n: int
    min_auc: float
    threshold: float | None = None  # score >= threshold separates right from wrong best (Youden's J)

    @property
    def passed(self) -> bool | None:
        return None if self.auc is None else self.auc >= self.min_auc

    def figures(self, prefix: str) -> dict[str, float]:
        """``{prefix}n``, ``ties``, and when defined ``auc``, ``gap`` and ``passed`` (1 or 0)."""
        figures = {f"{prefix}n": float(self.n), f"{prefix}ties": float(self.ties)}
        if self.auc is not None:
            figures.update({f"{prefix}auc": self.auc, f"{prefix}gap": self.gap,
                            f"{prefix}passed": float(self.passed)})
        if self.threshold is not None:
            figures[f"{prefix}threshold"] = self.threshold
        return figures


def selfcheck_items(records: list, target: str, reads_contexts: bool,
                    settings: SelfCheckSettings) -> tuple[list[JudgeItem], list[JudgeItem]]:
    """The right and the wrong item of each sampled question, in the same order.

    The wrong item of question i uses the next sampled question's answer (or, when the rubric reads
    contexts, its chunks) that differs from i's, so every wrong item is another question's right
    material.
    """
    usable = [(record, _right_answer(record)) for record in records]
    usable = [(record, answer) for record, answer in usable if answer]
    if len(usable) < 2:
        return [], []
    rng = random.Random(settings.seed)
    sample = rng.sample(usable, min(settings.pairs, len(usable)))
    contexts = [_contexts(record, settings.contexts) for record, _ in sample]
    right, wrong = [], []
    for index, (record, answer) in enumerate(sample):
        # the next sampled question whose material differs (two questions may share a document)
        material = contexts if reads_contexts else [a for _, a in sample]
        other = next((j % len(sample) for j in range(index + 1, index + len(sample))
                      if material[j % len(sample)] != material[index]), (index + 1) % len(sample))
        right.append(_item(record, target, answer, contexts[index]))
        if reads_contexts:
            wrong.append(_item(record, target, answer, contexts[other]))
        else:
            wrong.append(_item(record, target, sample[other][1], contexts[index]))
    return right, wrong


def selfcheck_result(right: list[float | None], wrong: list[float | None], min_auc: float) -> SelfCheckResult:
    """AUC, mean gap, ties and the Youden threshold over the pairs where both scores exist."""
    from sklearn.metrics import roc_auc_score

    pairs = [(r, w) for r, w in zip(right, wrong) if r is not None and w is not None]
    ties = sum(abs(r - w) <= TIE for r, w in pairs)
    if len(pairs) < 2:
        return SelfCheckResult(auc=None, gap=None, ties=ties, n=len(pairs), min_auc=min_auc)
    scores = [r for r, _ in pairs] + [w for _, w in pairs]
    labels = [1] * len(pairs) + [0] * len(pairs)
    auc = 0.5 if len(set(scores)) == 1 else float(roc_auc_score(labels, scores))
    gap = sum(r - w for r, w in pairs) / len(pairs)
    return SelfCheckResult(auc=auc, gap=gap, ties=ties, n=len(pairs), min_auc=min_auc,
                           threshold=youden_threshold(labels, scores))


def youden_threshold(labels: list[int], scores: list[float]) -> float | None:
    """The score t for which "score >= t means right" maximises TPR - FPR (Youden's J) on
    scikit-learn's ROC; the highest such t when several tie. None when all scores are equal."""
    from sklearn.metrics import roc_curve

    if len(set(scores)) == 1:
        return None
    false_positive, true_positive, thresholds = roc_curve(labels, scores)
    j = true_positive - false_positive
    # rounded: 1 - 2/3 and 1/3 are one J; thresholds[0] is +inf (J = 0)
    best = max(range(len(j)), key=lambda i: (round(float(j[i]), 9), thresholds[i]))
    return float(thresholds[best])


def _right_answer(record) -> str | None:
    question = record.question
    return question.expected_answer or question.ground_truth or (" | ".join(question.answers) or None)


def _contexts(record, count: int) -> tuple[tuple[str, str], ...]:
    """The question's own chunks: what its system read (predictions with contexts), else the
    retrieved chunks of its gold documents, else its top retrieved chunks."""
    if record.generation is not None and record.generation.contexts is not None:
        return tuple(("", text) for text in record.generation.contexts[:count])
    gold = [c for c in record.chunks if record.question.relevant.get(c.doc_id, 0) > 0]
    return tuple((c.title, c.text) for c in (gold or record.chunks)[:count])


def _item(record, target: str, answer: str, contexts: tuple[tuple[str, str], ...]) -> JudgeItem:
    question = record.question
    ground_truth = question.ground_truth or (" | ".join(question.answers) if question.answers else None)
    return JudgeItem(question_id=question.id, target=target, question=question.text,
                     answer=None if target == "retrieval" else answer, ground_truth=ground_truth,
                     expected_answer=question.expected_answer or ground_truth, contexts=contexts,
                     gold_rank=None)
