"""Bets on the running leader: who is bet on at each question, and the wealth they make."""

import numpy as np
import pytest

from harness.racing.confseq import difference_log_e_process
from harness.racing.running_leader import running_leader_log_wealth


def pair_steps(rival, own, test="betting"):
    return np.diff(difference_log_e_process(np.array(rival), np.array(own), 0.0, 1.0, 0.0, 0.05, test), prepend=0.0)


def test_each_question_takes_the_step_of_the_rival_leading_on_the_questions_before():
    own = [0.2, 0.2, 0.2, 0.2, 0.2, 0.2]
    a = [0.9, 0.9, 0.1, 0.1, 0.1, 0.1]  # leads after questions 1-2 ...
    b = [0.5, 0.5, 0.9, 0.9, 0.9, 0.9]  # ... and b from question 5 on (mean 0.7 vs 0.5 before it)
    # Before q1: no values, the first rival (a); before q2-q4 a's mean is higher (0.9, 0.9, 0.633 vs
    # 0.5, 0.5, 0.633: equal, the first wins); before q5 and q6 b leads (0.7 vs 0.5, 0.74 vs 0.42).
    chosen = ["a", "a", "a", "a", "b", "b"]
    steps = {"a": pair_steps(a, own), "b": pair_steps(b, own)}
    expected = np.cumsum([steps[name][i] for i, name in enumerate(chosen)])
    wealth = running_leader_log_wealth("own", {"own": own, "a": a, "b": b}, True, 0.0, 1.0, 0.05, "betting")
    assert wealth == pytest.approx(expected)


def test_lower_is_better_bets_that_the_rival_is_lower():
    fast, slow = [0.1] * 30, [0.6] * 30
    up = running_leader_log_wealth("slow", {"slow": slow, "fast": fast}, False, 0.0, 1.0, 0.05, "betting")
    down = running_leader_log_wealth("fast", {"slow": slow, "fast": fast}, False, 0.0, 1.0, 0.05, "betting")
    assert up[-1] > np.log(100) and down.max() == 0.0


def test_a_rival_that_left_leads_only_while_it_ran_and_missing_values_bet_nothing():
    own = [0.0, 0.0, None, 0.0, 0.0, 0.0]
    gone = [1.0, 1.0, 1.0]          # left after three questions, best while it ran
    kept = [0.5, 0.5, 0.5, 0.5, 0.5, 0.5]
    wealth = running_leader_log_wealth("own", {"own": own, "gone": gone, "kept": kept}, True, 0.0, 1.0, 0.05,
                                       "hoeffding")
    with_gone = pair_steps([1.0, 1.0], [0.0, 0.0], "hoeffding")  # the pair's bets skip question 3
    with_kept = pair_steps([0.5] * 5, [0.0] * 5, "hoeffding")
    expected = np.cumsum([with_gone[0], with_gone[1], 0.0, with_kept[2], with_kept[3], with_kept[4]])
    assert wealth == pytest.approx(expected)


def test_alone_in_the_race_nothing_is_bet():
    assert running_leader_log_wealth("a", {"a": [0.3, 0.4]}, True, 0.0, 1.0, 0.05, "betting").tolist() == [0.0, 0.0]


def test_a_value_outside_the_bounds_is_refused_naming_its_configuration():
    with pytest.raises(ValueError, match="b: value 1.5 lies outside race.bounds"):
        running_leader_log_wealth("a", {"a": [0.3], "b": [1.5]}, True, 0.0, 1.0, 0.05, "betting")
