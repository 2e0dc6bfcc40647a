"""The combined suite: weighted means of z-scored columns, checked against hand-computed values."""

from __future__ import annotations

import math

import pytest
from hydra.utils import instantiate

from harness.metrics.combined_suite import CombinedSuite

S = math.sqrt(1.5)  # |z| of the outer values of a 3-point evenly spaced column (population std)


def test_weighted_z_mean_by_hand():
    # a/x = 1, 2, 3: mean 2, std sqrt(2/3), z = -S, 0, S. b/y = 10, 30, 20: z = -S, S, 0.
    # Weights 1 and 3: (z_a + 3 z_b) / 4.
    suite = CombinedSuite({"mix": {"a/x": 1.0, "b/y": 3.0}})
    rows = suite.derive([{"a/x": 1.0, "b/y": 10.0}, {"a/x": 2.0, "b/y": 30.0}, {"a/x": 3.0, "b/y": 20.0}])
    assert [row["mix"] for row in rows] == pytest.approx([-S, 3 * S / 4, S / 4])
    assert suite.aggregate(rows) == {"mix_n": 3.0}


def test_questions_missing_a_member_get_nothing_and_are_left_out_of_the_z_scores():
    suite = CombinedSuite({"mix": {"a/x": 1.0, "b/y": 1.0}})
    columns = [{"a/x": 1.0, "b/y": 10.0}, {"a/x": 5.0}, {"a/x": 3.0, "b/y": None},
               {"a/x": 2.0, "b/y": 30.0}, {"a/x": 3.0, "b/y": 20.0}, {"a/x": float("nan"), "b/y": 1.0}]
    rows = suite.derive(columns)
    # Only questions 0, 3, 4 are complete: the same z-scores as above, so (z_a + z_b) / 2.
    assert rows[1] == rows[2] == rows[5] == {}
    assert [rows[i]["mix"] for i in (0, 3, 4)] == pytest.approx([-S, S / 2, S / 2])
    assert suite.aggregate(rows) == {"mix_n": 3.0}


def test_a_negative_weight_flips_a_member_and_a_constant_member_adds_nothing():
    suite = CombinedSuite({"flip": {"a/x": -1.0}, "flat": {"a/x": 1.0, "c/k": 1.0}})
    rows = suite.derive([{"a/x": 1.0, "c/k": 7.0}, {"a/x": 3.0, "c/k": 7.0}])
    # a/x z = -1, 1; c/k is constant (z = 0); divided by sum |w|.
    assert [row["flip"] for row in rows] == pytest.approx([1.0, -1.0])
    assert [row["flat"] for row in rows] == pytest.approx([-0.5, 0.5])


def test_a_run_without_the_members_scores_nothing():
    suite = CombinedSuite({"mix": {"a/x": 1.0, "b/y": 1.0}})
    assert suite.derive([{"answer/f1": 1.0}, {}]) == [{}, {}]
    assert suite.aggregate([{}, {}]) == {"mix_n": 0.0}


@pytest.mark.parametrize("combinations, message", [
    ({"mix": {}}, "at least one member"),
    ({"mix": {"faithfulness": 1.0}}, "'<suite>/<column>'"),
    ({"mix": {"a/x": 0.0}}, "non-zero"),
])
def test_bad_combinations_name_the_key(combinations, message):
    with pytest.raises(ValueError, match="metrics.combined.combinations.mix") as error:
        CombinedSuite(combinations)
    assert message in str(error.value)


def test_the_default_config_combines_overlap_and_pmi(compose):
    suite = instantiate(compose().metrics.combined)
    assert isinstance(suite, CombinedSuite)
    assert suite.combinations == {"overlap_pmi": {"answer/faithfulness": 1.0, "judge/pmi_faithfulness": 1.0}}
