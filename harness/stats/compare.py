"""One challenger against the champion, metric by metric, on per-question values."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np

from harness.config.schemas.choices import StatTest, values
from harness.stats._checks import check_count, check_probability
from harness.stats.comparison import MetricComparison
from harness.stats.effect import bootstrap_ci, cohens_d
from harness.stats.paired import PairedSample, align
from harness.stats.permutation import paired_permutation_test
from harness.stats.power import (
    achieved_power,
    minimum_detectable_effect,
    required_sample_size_t,
    required_sample_size_z,
)
from harness.stats.spec import MetricSpec
from harness.stats.t_test import paired_t_test
from harness.stats.wilcoxon import wilcoxon_signed_rank

TESTS = values(StatTest)
Scores = dict[str, dict[str, float | None]]  # metric -> question id -> value


def _or_none(compute: Callable[[], float], *needed) -> float | None:
    """``compute()`` when every needed input exists and the computation is defined, else None."""
    if any(x is None for x in needed):
        return None
    try:
        return compute()
    except (ValueError, ArithmeticError):
        return None


def compare_metric(
    spec: MetricSpec, sample: PairedSample, alpha: float, test: str, resamples: int, seed: int, power_target: float
) -> MetricComparison:
    """Every statistic of one metric; see :func:`compare_pair` for the arguments."""
    d, n = sample.differences, sample.n
    t_result, wilcoxon_result = paired_t_test(sample), wilcoxon_signed_rank(sample)
    permutation = paired_permutation_test(sample, resamples, seed) if test == "permutation" else None
    selected = {"t": t_result, "wilcoxon": wilcoxon_result, "permutation": permutation}[test]
    effect = cohens_d(d, tolerance=sample.tolerance)
    ci = bootstrap_ci(d, resamples, alpha, seed) if n >= 2 else (None, None)
    n_t = _or_none(lambda: required_sample_size_t(effect, alpha, power_target), effect)
    return MetricComparison(
        spec=spec,
        n=n,
        missing_ids=sample.missing_ids,
        mean_champion=float(np.mean(sample.champion)) if n else None,
        mean_challenger=float(np.mean(sample.challenger)) if n else None,
        mean_difference=float(np.mean(d)) if n else None,
        test=test,
        p_value=selected.p_value,
        reason=selected.reason,
        t_test=t_result,
        wilcoxon=wilcoxon_result,
        permutation=permutation,
        bootstrap_low=ci[0],
        bootstrap_high=ci[1],
        cohens_d=effect,
        achieved_power=_or_none(lambda: achieved_power(effect, n, alpha), effect),
        n_required_z=_or_none(lambda: required_sample_size_z(effect, alpha, power_target), effect),
        n_required_t=math.ceil(n_t) if n_t is not None else None,
        minimum_detectable_d=_or_none(lambda: minimum_detectable_effect(n, alpha, power_target)),
        differences=d,
    )


def check_arguments(
    metrics: Sequence[MetricSpec], alpha: float, test: str, resamples: int, power_target: float
) -> None:
    """Validate the shared arguments of :func:`compare_pair` and ``compare_sweep``."""
    check_probability(alpha, "alpha")
    check_probability(power_target, "power_target")
    check_count(resamples, "resamples", 1)
    if test not in TESTS:
        raise ValueError(f"test must be one of {TESTS}, got {test!r}")
    names = [m.name for m in metrics]
    if not names or len(set(names)) != len(names):
        raise ValueError(f"metrics must be a non-empty list of distinct metrics, got {names}")


def compare_pair(
    champion: Scores,
    challenger: Scores,
    metrics: Sequence[MetricSpec],
    alpha: float,
    test: str,
    resamples: int,
    seed: int,
    power_target: float,
) -> list[MetricComparison]:
    """Compare a challenger with the champion on each metric, question by question.

    Args:
        champion: metric name -> question id -> value (None/NaN = no value, e.g. a failed judge).
        challenger: the same for the challenger; each metric must cover the same question ids.
        metrics: the metrics to compare.
        alpha: significance level (also sets the bootstrap interval at 1 - alpha).
        test: the test whose p-value is reported as ``p_value``: ``"t"``, ``"wilcoxon"`` or
            ``"permutation"``. The t-test and Wilcoxon always run; the permutation test only
            when selected.
        resamples: bootstrap samples, and random permutations for the permutation test.
        seed: seed of both random generators (each metric starts from it afresh).
        power_target: power for the required sample sizes and the minimum detectable effect.

    Returns:
        One :class:`MetricComparison` per metric, uncorrected (``p_corrected`` is None).

    Raises:
        MisalignedError: a metric's question ids differ between the two systems.
        ValueError: a metric is absent from either side, or an argument is invalid.
    """
    check_arguments(metrics, alpha, test, resamples, power_target)
    comparisons = []
    for spec in metrics:
        for side, scores in (("champion", champion), ("challenger", challenger)):
            if spec.name not in scores:
                raise ValueError(f"{side} has no values for metric {spec.name!r}; it has {sorted(scores)}")
        sample = align(champion[spec.name], challenger[spec.name], label=f"metric {spec.name!r}")
        comparisons.append(compare_metric(spec, sample, alpha, test, resamples, seed, power_target))
    return comparisons
