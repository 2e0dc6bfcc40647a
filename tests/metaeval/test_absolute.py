"""Absolute ratings: hand-computed correlations, the ceiling, bootstrap CIs and the report files."""

from __future__ import annotations

import csv
import math

import numpy as np
import pytest
from scipy.stats import bootstrap, kendalltau, pearsonr, spearmanr
from sklearn.metrics import cohen_kappa_score

from harness.human.table import read_run_table
from harness.metaeval.correlation import bootstrap_estimate
from harness.metaeval.evaluate import meta_evaluate
from tests.metaeval.conftest import labels_file, run_folder

X = [1, 2, 3, 4]
A1, A2 = [1, 2, 3, 5], [1, 2, 4, 5]  # mean rating 1, 2, 3.5, 5


@pytest.fixture
def report(tmp_path, settings_for):
    folder = run_folder(tmp_path, "run", {"m/x": X, "m/y": [4, 3, 2, 1], "m/flat": [1, 1, 1, 1],
                                          "m/sparse": [1, None, None, 2]})
    labels = labels_file(tmp_path / "labels.jsonl", "quality", {"a1": A1, "a2": A2})
    settings = settings_for(["meta_eval.absolute_scale=[1,5]", "meta_eval.bootstrap.resamples=200"])
    return meta_evaluate([read_run_table(folder / "per_question.jsonl")], labels, settings)


def test_hand_computed_correlations(report):
    by_column = {a.column: a for a in report.agreements}
    x = by_column["m/x"]
    # mean ratings 1, 2, 3.5, 5: sum dx*dy = 6.75, sxx = 5, syy = 9.1875 -> r = 6.75 / sqrt(45.9375)
    assert x.estimates["pearson"].value == pytest.approx(6.75 / math.sqrt(45.9375), abs=1e-12)
    assert x.estimates["pearson"].value == pytest.approx(pearsonr(X, [1, 2, 3.5, 5]).statistic, abs=1e-12)
    assert x.estimates["spearman"].value == 1.0 and x.estimates["kendall"].value == 1.0
    assert by_column["m/y"].estimates["spearman"].value == -1.0
    assert math.isnan(by_column["m/flat"].estimates["pearson"].value)  # constant: undefined, not 0
    assert "m/sparse" not in by_column  # 2 values < min_pairs: a missing value is never read as 0
    assert x.n == 4
    assert [a.column for a in report.sorted()] == ["m/x", "m/y", "m/flat"]  # by spearman, undefined last


def test_ceiling_and_fraction(report):
    (ceiling,) = report.ceilings
    # a1 vs a2: sum dx*dy = 9, sxx = 8.75, syy = 10; kappa: p_o = 3/4, p_e = 3/16 -> 0.5625 / 0.8125
    assert ceiling.pearson == pytest.approx(9 / math.sqrt(87.5), abs=1e-12)
    assert ceiling.spearman == pytest.approx(1.0)
    assert ceiling.kappa == pytest.approx(0.5625 / 0.8125, abs=1e-12)
    # quadratic: observed (3-4)^2 / 4 = 0.25, expected 76 / 16 = 4.75 -> 1 - 0.25 / 4.75
    assert ceiling.kappa_quadratic == pytest.approx(1 - 0.25 / 4.75, abs=1e-12)
    assert ceiling.kappa_quadratic == pytest.approx(cohen_kappa_score(A1, A2, labels=[1, 2, 3, 4, 5],
                                                                      weights="quadratic"))
    x = next(a for a in report.agreements if a.column == "m/x")
    fractions = report.fractions(x)
    assert fractions["spearman"] == pytest.approx(1.0)
    assert fractions["pearson"] == pytest.approx((6.75 / math.sqrt(45.9375)) / (9 / math.sqrt(87.5)))


def test_bootstrap_interval_is_scipys():
    rng = np.random.default_rng(7)
    x = rng.normal(size=40)
    y = x + rng.normal(size=40)
    for name, function in (("pearson", pearsonr), ("spearman", spearmanr), ("kendall", kendalltau)):
        estimate = bootstrap_estimate(name, x, y, resamples=300, confidence=0.9, seed=11)

        def statistic(a, b, axis=-1, function=function):
            return np.array([function(p, q).statistic for p, q in zip(a.reshape(-1, a.shape[-1]),
                                                                      b.reshape(-1, b.shape[-1]))])
        ci = bootstrap((x, y), statistic, paired=True, vectorized=True, n_resamples=300, confidence_level=0.9,
                       method="percentile", rng=np.random.default_rng(11)).confidence_interval
        assert estimate.value == pytest.approx(function(x, y).statistic, abs=1e-12)
        assert (estimate.low, estimate.high) == pytest.approx((ci.low, ci.high), abs=1e-12)
        assert estimate == bootstrap_estimate(name, x, y, resamples=300, confidence=0.9, seed=11)  # seeded


def test_report_files_and_metrics(report, tmp_path):
    paths = report.write(tmp_path / "out")
    assert {p.name for p in paths} == {"meta_eval.csv", "meta_eval_ceiling.csv", "meta_eval.txt", "meta_eval.png"}
    rows = list(csv.DictReader((tmp_path / "out" / "meta_eval.csv").open()))
    assert [r["column"] for r in rows] == ["m/x", "m/y", "m/flat"]
    assert float(rows[0]["spearman"]) == 1.0 and float(rows[0]["spearman_of_ceiling"]) == pytest.approx(1.0)
    assert (tmp_path / "out" / "meta_eval.png").read_bytes()[:4] == b"\x89PNG"
    metrics = report.metrics()
    assert metrics["meta_eval/quality/spearman/m/x"] == 1.0
    assert metrics["meta_eval/quality/ceiling/kappa"] == pytest.approx(0.5625 / 0.8125)
    assert not any("m/flat" in k and "/pearson/" in k for k in metrics)  # undefined values are not logged
    text = report.text()
    assert "m/x" in text and "Human ceiling" in text and "constant on the labelled questions" in text
