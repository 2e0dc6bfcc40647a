"""Paired statistics for comparing a challenger pipeline with the champion (seed 003, section 7).

Per-question values are aligned by question id (:func:`align`); each significance test lives in
its own module and returns a :class:`TestResult` that states why when a test cannot run;
:func:`compare_sweep` corrects the whole family of comparisons and applies the winner rule.
"""

from harness.stats.compare import TESTS, compare_pair
from harness.stats.comparison import MetricComparison, to_rows
from harness.stats.correction import METHODS, correct
from harness.stats.effect import bootstrap_ci, cohens_d
from harness.stats.paired import MisalignedError, PairedSample, align
from harness.stats.permutation import paired_permutation_test
from harness.stats.power import (
    achieved_power,
    minimum_detectable_effect,
    minimum_detectable_effect_t,
    required_sample_size_t,
    required_sample_size_z,
)
from harness.stats.result import TestResult
from harness.stats.spec import MetricSpec
from harness.stats.sweep import ChallengerResult, SweepResult, compare_sweep
from harness.stats.t_test import paired_t_test
from harness.stats.verdict import MetricEvidence, Verdict, decide
from harness.stats.wilcoxon import wilcoxon_signed_rank

__all__ = [
    "METHODS",
    "TESTS",
    "ChallengerResult",
    "MetricComparison",
    "MetricEvidence",
    "MetricSpec",
    "MisalignedError",
    "PairedSample",
    "SweepResult",
    "TestResult",
    "Verdict",
    "achieved_power",
    "align",
    "bootstrap_ci",
    "cohens_d",
    "compare_pair",
    "compare_sweep",
    "correct",
    "decide",
    "minimum_detectable_effect",
    "minimum_detectable_effect_t",
    "paired_permutation_test",
    "paired_t_test",
    "required_sample_size_t",
    "required_sample_size_z",
    "to_rows",
    "wilcoxon_signed_rank",
]
