"""``harness meta-eval``'s computation: labels and run tables in, a :class:`MetaEvalReport` out."""

from __future__ import annotations

from pathlib import Path

from harness.human.table import RunTable
from harness.metaeval.absolute import absolute_agreement
from harness.metaeval.ceiling import ceilings
from harness.metaeval.labels import FeedbackLabels, read_labels
from harness.metaeval.pairwise import pairwise_agreement, require_same_questions
from harness.metaeval.report import ABSOLUTE, PAIRWISE, MetaEvalReport
from harness.metaeval.settings import MetaEvalSettings, Scale


def meta_evaluate(runs: list[RunTable], labels_path: Path | FeedbackLabels, settings: MetaEvalSettings,
                  scale: Scale | None = None) -> MetaEvalReport:
    """Absolute ratings for one run, pairwise preferences (B over A) for two.

    Args:
        runs: ``[run]`` or ``[run_a, run_b]``; two runs must hold the same question ids.
        labels_path: the labels JSONL file, or people's feedback read from a tracker.
        settings: the ``meta_eval`` config group.
        scale: overrides the configured scale of this label format (``--scale``).
    """
    if len(runs) not in (1, 2):
        raise ValueError(f"meta-eval takes one run (absolute ratings) or two (pairwise preferences), got {len(runs)}")
    kind = ABSOLUTE if len(runs) == 1 else PAIRWISE
    if kind == PAIRWISE:
        require_same_questions(*runs)
        scale = scale or settings.pairwise_scale
    else:
        scale = scale or settings.absolute_scale
    names = " and ".join(f"{r.name} ({r.path})" for r in runs)
    labels = read_labels(labels_path, runs[0].by_id.keys(), scale, names)
    if kind == ABSOLUTE:
        agreements = absolute_agreement(labels, runs[0], settings)
    else:
        agreements = pairwise_agreement(labels, runs[0], runs[1], settings, scale)
    return MetaEvalReport(kind=kind, runs=runs, labels=labels, agreements=agreements,
                          ceilings=ceilings(labels, scale, settings.min_pairs), headline=settings.headline,
                          confidence=settings.confidence)
