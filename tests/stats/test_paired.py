import math
import pickle

import numpy as np
import pytest

from harness.stats.paired import MisalignedError, PairedSample, align


def test_aligns_by_id_not_by_order():
    sample = align({"b": 0.2, "a": 0.1}, {"a": 0.5, "b": 0.4})
    assert sample.ids == ("a", "b")
    assert sample.champion.tolist() == [0.1, 0.2]
    assert sample.challenger.tolist() == [0.5, 0.4]
    np.testing.assert_allclose(sample.differences, [0.4, 0.2])
    assert sample.n == 2 and sample.missing == 0


def test_none_and_nan_pairs_are_dropped_and_counted():
    champion = {"q1": 0.5, "q2": None, "q3": 0.1, "q4": 0.3}
    challenger = {"q1": 0.6, "q2": 0.9, "q3": math.nan, "q4": np.float64("nan")}
    sample = align(champion, challenger)
    assert sample.ids == ("q1",)
    assert sample.missing == 3
    assert sample.missing_ids == ("q2", "q3", "q4")


def test_every_pair_missing_gives_an_empty_sample():
    sample = align({"q1": None}, {"q1": 1.0})
    assert sample.n == 0 and sample.missing_ids == ("q1",)
    assert sample.differences.shape == (0,)


def test_empty_inputs_give_an_empty_sample():
    sample = align({}, {})
    assert sample.n == 0 and sample.missing == 0 and not sample.all_zero()


def test_misaligned_ids_are_listed_per_side():
    with pytest.raises(MisalignedError) as info:
        align({"q1": 1.0, "q2": 1.0, "q3": 1.0}, {"q2": 1.0, "q4": 0.0})
    error = info.value
    assert isinstance(error, ValueError)
    assert error.only_champion == ["q1", "q3"] and error.only_challenger == ["q4"]
    assert "2 ['q1', 'q3'] only in champion" in str(error)
    assert "1 ['q4'] only in challenger" in str(error)


def test_misaligned_message_shows_first_20_ids_and_the_count():
    champion = {f"a{i:02d}": 1.0 for i in range(25)}
    with pytest.raises(MisalignedError) as info:
        align(champion, {"b": 1.0}, label="metric 'f1'")
    message = str(info.value)
    assert message.startswith("metric 'f1': ")
    assert "25 ['a00'" in message and "'a19', ... (5 more)" in message and "'a20'" not in message
    assert len(info.value.only_champion) == 25
    copy = pickle.loads(pickle.dumps(info.value))
    assert str(copy) == message and copy.only_challenger == ["b"]


def test_infinite_value_is_refused_naming_the_question():
    with pytest.raises(ValueError, match=r"challenger\['q1'\] is inf"):
        align({"q1": 0.0}, {"q1": math.inf})


def test_rounding_noise_counts_as_zero_and_constant():
    # 0.3 - 0.2 and 0.4 - 0.3 differ in the last bits; they are the same difference.
    sample = align({"a": 0.2, "b": 0.3, "c": 0.5}, {"a": 0.3, "b": 0.4, "c": 0.6})
    assert np.ptp(sample.differences) > 0
    assert sample.constant() and not sample.all_zero()
    noise = PairedSample(("a", "b"), np.array([0.3, 0.1 + 0.2]), np.array([0.1 + 0.2, 0.3]))
    assert noise.all_zero()
