"""Seed 004's context delta gets paired tests: checked against statsmodels and scipy directly."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hydra.utils import instantiate
from scipy.stats import bootstrap, wilcoxon
from statsmodels.stats.contingency_tables import mcnemar

from harness.metrics.context_significance import SignificanceSettings, paired_significance

SETTINGS = SignificanceSettings(resamples=500, confidence=0.9, seed=3, min_pairs=5)
# 10 paired questions, 0-10 scores; accurate = score >= 7.
WITH = [9, 8, 7, 10, 3, 8, 9, 6, 7, 10]
NO = [4, 8, 2, 6, 3, 9, 5, 7, 1, 3]


def flags(scores):
    return [float(s >= 7) for s in scores]


def test_figures_equal_the_libraries():
    result = paired_significance(WITH, NO, flags(WITH), flags(NO), SETTINGS)
    # accurate with only: q1, q3, q4, q7, q9, q10 (6); without only: q8 (1); both: q2, q6; neither: q5
    assert (result.with_only, result.no_only) == (6, 1)
    assert result.mcnemar_p == pytest.approx(mcnemar([[2, 6], [1, 1]], exact=True).pvalue, abs=1e-12)
    assert result.mcnemar_p == pytest.approx(16 / 128, abs=1e-12)  # 2 * P(Bin(7, 1/2) <= 1) = 2 * 8/128
    expected = wilcoxon(np.subtract(WITH, NO))
    assert result.wilcoxon_statistic == expected.statistic and result.wilcoxon_p == pytest.approx(expected.pvalue)
    ci = bootstrap((np.array(flags(WITH)), np.array(flags(NO))),
                   lambda a, b, axis=-1: 100 * (a.mean(axis=axis) - b.mean(axis=axis)), paired=True, vectorized=True,
                   n_resamples=500, confidence_level=0.9, method="percentile",
                   rng=np.random.default_rng(3)).confidence_interval
    assert result.delta_ci == pytest.approx((ci.low, ci.high))
    assert result.delta_ci[0] <= 50.0 <= result.delta_ci[1]  # delta = 80% - 30%
    assert result.metrics()["mcnemar_p"] == result.mcnemar_p and not result.reasons


def test_degenerate_cases_give_reasons_not_p_values():
    same = paired_significance(WITH, WITH, flags(WITH), flags(WITH), SETTINGS)
    assert same.mcnemar_p is None and "no discordant pairs" in same.reasons["mcnemar"]
    assert same.wilcoxon_p is None and "all score differences are zero" in same.reasons["wilcoxon"]
    assert same.delta_ci == (0.0, 0.0)
    assert "mcnemar_p" not in same.metrics() and "wilcoxon_p" not in same.metrics()
    few = paired_significance(WITH[:4], NO[:4], flags(WITH[:4]), flags(NO[:4]), SETTINGS)
    assert few.mcnemar_p is None and few.wilcoxon_p is None and few.delta_ci is None
    assert few.reasons["bootstrap"].startswith("too few pairs: 4 question(s)")
    # Discordant flags but equal scores elsewhere: McNemar runs, the rest follows the data.
    assert paired_significance([7, 6, 7, 7, 7], [6, 7, 7, 7, 7], [1, 0, 1, 1, 1], [0, 1, 1, 1, 1],
                               SETTINGS).mcnemar_p == pytest.approx(1.0)


def test_settings_are_validated():
    with pytest.raises(ValueError, match="confidence"):
        SignificanceSettings(resamples=10, confidence=1.5, seed=0, min_pairs=5)
    with pytest.raises(ValueError, match="resamples"):
        SignificanceSettings(resamples=0, confidence=0.9, seed=0, min_pairs=5)


def test_suite_logs_the_tests_and_keeps_the_seed_shape(compose):
    from tests.metrics.test_context_delta import record

    suite = instantiate(compose(["metrics.context_delta.judge_rubric=null"]).metrics.context_delta)
    # Proxy scores: answer == gold scores 10, anything else 0.
    records = [record(f"q{i}", "red", "red" if w else "blue", "red" if n else "blue")
               for i, (w, n) in enumerate([(1, 0), (1, 0), (1, 0), (1, 1), (0, 0), (1, 0)])]
    rows = [suite.score(r) for r in records]
    summary = suite.aggregate(rows)
    assert summary["delta_pp"] == pytest.approx(100 * 5 / 6 - 100 * 1 / 6)
    assert summary["mcnemar_p"] == pytest.approx(mcnemar([[1, 4], [0, 1]], exact=True).pvalue)  # 2 * 1/16
    assert summary["wilcoxon_p"] == pytest.approx(wilcoxon([10, 10, 10, 0, 0, 10]).pvalue)
    assert summary["delta_pp_ci_low"] <= summary["delta_pp"] <= summary["delta_pp_ci_high"]
    report = json.loads(suite.artifacts(records, rows)["context_delta.json"])
    assert {"grand_summary", "per_pack", "delta_pp", "interpretation"} <= set(report)  # seed 004's keys kept
    block = report["significance"]
    assert block["n_pairs"] == 6 and block["mcnemar_exact"]["p_value"] == pytest.approx(0.125)
    assert block["mcnemar_exact"]["accurate_with_context_only"] == 4 and block["mcnemar_exact"]["reason"] is None
    assert block["delta_pp_bootstrap_ci"]["resamples"] == 2000


def test_significance_null_runs_no_tests(compose):
    suite = instantiate(compose(["metrics.context_delta.significance=null"]).metrics.context_delta)
    assert suite.significance is None
