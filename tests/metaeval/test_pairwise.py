"""Pairwise preferences: normalised differences, median imputation, one row per label, sign agreement."""

from __future__ import annotations

import pytest
from scipy.stats import pearsonr, spearmanr

from harness.human.table import read_run_table
from harness.metaeval.evaluate import meta_evaluate
from tests.metaeval.conftest import labels_file, run_folder

A1, A2 = [2, 1, -1, 1], [1, 0, -2, 0]  # how much better B is than A, per question; a2 = a1 - 1


@pytest.fixture
def report(tmp_path, settings_for):
    a = run_folder(tmp_path, "a", {"m/s": [0.2, 0.5, 0.5, 0.9], "m/flat": [1, 1, 1, 1]})
    b = run_folder(tmp_path, "b", {"m/s": [0.8, 0.5, 0.3, None], "m/flat": [2, 2, 2, 2]})
    labels = labels_file(tmp_path / "prefs.jsonl", "preference", {"a1": A1, "a2": A2})
    settings = settings_for(["meta_eval.bootstrap.resamples=200"])  # pairwise_scale [-2, 2] from the YAML
    return meta_evaluate([read_run_table(a / "per_question.jsonl"), read_run_table(b / "per_question.jsonl")],
                         labels, settings)


def test_hand_computed_pairwise_figures(report):
    s = next(a for a in report.agreements if a.column == "m/s")
    # B - A = 0.6, 0, -0.2, missing -> onto [-2, 2] (min -0.2, max 0.6): 2, -1, -2; q4 gets the median, -1.
    x = [2, -1, -2, -1] * 2
    y = A1 + A2  # each annotator's label is its own row
    assert s.n == 8
    # scipy on the hand-normalised, hand-imputed rows:
    assert s.estimates["pearson"].value == pytest.approx(100 * pearsonr(x, y).statistic, abs=1e-9)
    assert s.estimates["spearman"].value == pytest.approx(100 * spearmanr(x, y).statistic, abs=1e-9)
    # mean preference: +1.5, +0.5, -1.5 (q4 has no difference); signs of B - A: +, 0, - -> 2 of 3 agree
    assert s.extras == {"sign_agreement": pytest.approx(2 / 3), "n_sign": 3.0, "imputed": 1.0}
    assert s.estimates["pearson"].low <= s.estimates["pearson"].value <= s.estimates["pearson"].high


def test_equal_differences_correlate_with_nothing(report):
    flat = next(a for a in report.agreements if a.column == "m/flat")
    assert flat.estimates["pearson"].value != flat.estimates["pearson"].value  # NaN: constant differences
    # B > A on every question; preferred: +1.5, +0.5, -1.5, +0.5 -> 3 of 4 agree
    assert flat.extras["sign_agreement"] == pytest.approx(3 / 4) and flat.extras["n_sign"] == 4


def test_pairwise_ceiling_on_the_same_scale(report):
    (ceiling,) = report.ceilings
    assert ceiling.pearson == pytest.approx(1.0) and ceiling.spearman == pytest.approx(1.0)
    # unweighted kappa over -2..2: no agreement, p_e = P(1) * P(1) = 2/4 * 1/4 = 1/8 -> -1/8 / (7/8)
    assert ceiling.kappa == pytest.approx(-1 / 7)
    s = next(a for a in report.agreements if a.column == "m/s")
    assert report.fractions(s)["pearson"] == pytest.approx(s.estimates["pearson"].value / 100)
    assert "x 100" in report.text() and "sign agrees" in report.text()
