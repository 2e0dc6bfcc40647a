import pytest
from statsmodels.stats.multitest import multipletests

from harness.stats.correction import correct

P_VALUES = [0.001, 0.04, 0.03, 0.2, 0.011, 0.5, 0.049, 1.0, 0.0]


@pytest.mark.parametrize(
    ("method", "statsmodels_name"), [("holm", "holm"), ("bonferroni", "bonferroni"), ("bh", "fdr_bh")]
)
def test_equals_statsmodels(method, statsmodels_name):
    expected = multipletests(P_VALUES, method=statsmodels_name)[1]
    assert correct(P_VALUES, method) == pytest.approx(list(expected), abs=1e-15)


def test_none_method_returns_the_p_values():
    assert correct(P_VALUES, "none") == P_VALUES


def test_holm_skips_untestable_entries():
    with_gaps = [0.01, None, 0.04, None, 0.03]
    expected = multipletests([0.01, 0.04, 0.03], method="holm")[1]
    result = correct(with_gaps, "holm")
    assert result[1] is None and result[3] is None
    assert [result[0], result[2], result[4]] == pytest.approx(list(expected))
    assert result == pytest.approx([0.03, None, 0.06, None, 0.06])


@pytest.mark.parametrize("method", ["holm", "bh", "bonferroni", "none"])
def test_all_untestable_and_empty(method):
    assert correct([None, None], method) == [None, None]
    assert correct([], method) == []


def test_unknown_method_names_it_and_the_choices():
    with pytest.raises(ValueError, match=r"method must be one of \['bh', 'bonferroni', 'holm', 'none'\], got 'fdr'"):
        correct([0.1], "fdr")


@pytest.mark.parametrize("bad", [float("nan"), -0.1, 1.5, "0.1"])
def test_invalid_p_values_are_refused_by_position(bad):
    with pytest.raises(ValueError, match=r"p_values\[1\]"):
        correct([0.1, bad], "holm")
