"""``harness align``'s computation: runs and labels in, an :class:`AlignReport` out."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from harness.align.design import build_design
from harness.align.fit import fit_combination, predictions
from harness.align.report import ALIGNED, HELD_OUT, IN_SAMPLE, AlignReport, Agreement
from harness.align.settings import AlignSettings
from harness.human.table import RunTable
from harness.metaeval.ceiling import ceilings
from harness.metaeval.correlation import STATISTICS, bootstrap_estimate
from harness.metaeval.labels import FeedbackLabels, read_labels
from harness.metaeval.pairwise import require_same_questions
from harness.metaeval.settings import MetaEvalSettings, Scale


def align(runs: list[RunTable], labels_path: Path | FeedbackLabels, settings: MetaEvalSettings, align_settings: AlignSettings,
          scale: Scale | None = None, dimension: str | None = None) -> AlignReport:
    """Fits the combination and measures it and every single column, held-out and in-sample.

    Args:
        runs: ``[run]`` (absolute ratings) or ``[run_a, run_b]`` (pairwise preferences, B over A).
        labels_path: the labels JSONL (the format of ``harness meta-eval``), or people's feedback read
            from a tracker.
        settings: the ``meta_eval`` group (bootstrap, scales, min_pairs).
        align_settings: ``meta_eval.align`` (folds, penalties, coverage, exclusions).
        scale: overrides the configured label scale (``--scale``).
        dimension: the labels' dimension to fit (default: the first).
    """
    if len(runs) not in (1, 2):
        raise ValueError(f"align takes one run (absolute ratings) or two (pairwise preferences), got {len(runs)}")
    if len(runs) == 2:
        require_same_questions(*runs)
        scale = scale or settings.pairwise_scale
    else:
        scale = scale or settings.absolute_scale
    labels = read_labels(labels_path, runs[0].by_id.keys(), scale,
                         " and ".join(f"{r.name} ({r.path})" for r in runs))
    dimension = dimension or labels.dimensions[0]
    if dimension not in labels.dimensions:
        raise ValueError(f"--dimension {dimension!r} is not in {labels.path} (dimensions: {labels.dimensions})")
    design = build_design(labels, dimension, runs, align_settings.exclude, align_settings.min_coverage)
    if len(design.y) < settings.min_pairs:
        raise ValueError(f"{len(design.y)} labelled rows; meta_eval.min_pairs is {settings.min_pairs}")
    models = {ALIGNED: design.x, **{c: design.x[:, [i]] for i, c in enumerate(design.columns)}}
    agreements, held_out = [], None
    for column, x in models.items():
        predicted = predictions(x, design.y, design.groups, align_settings)
        if column == ALIGNED:
            held_out = predicted.held_out
        for split, values in ((IN_SAMPLE, predicted.in_sample), (HELD_OUT, predicted.held_out)):
            agreements.append(Agreement(column, split, len(design.y), {
                s: bootstrap_estimate(s, values, design.y, settings.resamples, settings.confidence, settings.seed)
                for s in STATISTICS}))
    return AlignReport(runs=runs, labels=labels, dimension=dimension, design=design,
                       combination=fit_combination(design, align_settings), agreements=agreements,
                       held_out=np.asarray(held_out), ceilings=ceilings(labels, scale, settings.min_pairs),
                       confidence=settings.confidence, settings=align_settings)
