"""Paired statistics for comparing a challenger pipeline with the champion (seed 003, section 7).

Per-question values are aligned by question id (:func:`align`); each significance test lives in
its own module and returns a :class:`TestResult` that states why when a test cannot run;
:func:`decide` decides a family of comparisons at one error budget (verdicts at the margins, the
winners read from them, the front), for a sweep (:func:`compare_sweep`) or anyone's scores.
"""

import importlib

# Imported on first use (PEP 562): ``harness.stats.spec`` alone is wanted by the racing sweeper and
# the tracking callback of every run, and the tests' modules pull in scipy, statsmodels and pandas
# (2.3 of a single run's 15 CPU s, measured with python -X importtime).
_WHERE = {
    "ChallengerResult": "harness.stats.sweep",
    "METHODS": "harness.stats.correction",
    "MetricComparison": "harness.stats.comparison",
    "Decision": "harness.stats.decide",
    "MetricSpec": "harness.stats.spec",
    "MisalignedError": "harness.stats.paired",
    "PairedSample": "harness.stats.paired",
    "SweepResult": "harness.stats.sweep",
    "TESTS": "harness.stats.compare",
    "TestResult": "harness.stats.result",
    "Verdict": "harness.stats.verdict",
    "achieved_power": "harness.stats.power",
    "align": "harness.stats.paired",
    "bootstrap_ci": "harness.stats.effect",
    "cohens_d": "harness.stats.effect",
    "compare_pair": "harness.stats.compare",
    "compare_sweep": "harness.stats.sweep",
    "correct": "harness.stats.correction",
    "decide": "harness.stats.decide",
    "decide_family": "harness.stats.family",
    "minimum_detectable_effect": "harness.stats.power",
    "minimum_detectable_effect_t": "harness.stats.power",
    "paired_permutation_test": "harness.stats.permutation",
    "paired_t_test": "harness.stats.t_test",
    "required_sample_size_t": "harness.stats.power",
    "required_sample_size_z": "harness.stats.power",
    "to_rows": "harness.stats.comparison",
    "wilcoxon_signed_rank": "harness.stats.wilcoxon",
    "winner": "harness.stats.verdict",
}


def __getattr__(name: str):
    if name not in _WHERE:
        raise AttributeError(f"module 'harness.stats' has no attribute {name!r}")
    value = getattr(importlib.import_module(_WHERE[name]), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)


__all__ = sorted(_WHERE)  # the public names are the keys above
