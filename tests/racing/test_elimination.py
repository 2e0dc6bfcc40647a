"""One round's decisions: the leader, guard regressions, failures, and the record the console reads."""

import math

import numpy as np
import pytest

from harness.racing.elimination import EliminationRule, eliminate
from harness.racing.race import Race, round_lines
from harness.stats.spec import MetricSpec

PRIMARY = MetricSpec("answer/f1", "higher", "primary")
GUARD = MetricSpec("generation/latency", "lower", "guard", tolerance=0.1)


def rule(configurations=3, guards=()):
    return EliminationRule(PRIMARY, tuple(guards), alpha=0.05, test="betting", low=0.0, high=1.0,
                           min_questions=10, configurations=configurations)


def test_family_is_every_ordered_pair_on_every_metric():
    assert rule(3).comparisons == 6 and rule(3, [GUARD]).comparisons == 12
    assert rule(3, [GUARD]).level == pytest.approx(0.05 / 12)


def test_clear_loser_leaves_equal_ones_stay():
    rng = np.random.default_rng(0)
    good = rng.uniform(0.6, 1.0, 200)
    scores = {"a": {"answer/f1": list(good)}, "b": {"answer/f1": list(good - 0.5)},
              "c": {"answer/f1": list(np.clip(good + rng.normal(0, 0.01, 200), 0, 1))}}
    leader, gone = eliminate(scores, rule(), round_number=2)
    assert leader in ("a", "c") and [e.name for e in gone] == ["b"]
    assert gone[0].round == 2 and gone[0].questions == 200 and gone[0].mean_difference == pytest.approx(0.5)
    assert 0 < gone[0].bound < 0.5 and "lower bound" in gone[0].reason


def test_guard_regression_beyond_tolerance_eliminates():
    primary = [0.5] * 150
    scores = {"fast": {"answer/f1": primary, "generation/latency": [0.1] * 150},
              "slow": {"answer/f1": primary, "generation/latency": [0.9] * 150},
              "bit_slower": {"answer/f1": primary, "generation/latency": [0.15] * 150}}
    leader, gone = eliminate(scores, rule(3, [GUARD]), 1)
    assert leader == "fast" and [(e.name, e.metric) for e in gone] == [("slow", "generation/latency")]
    assert "guard generation/latency" in gone[0].reason


def test_missing_values_are_skipped_and_nothing_leaves_before_min_questions():
    scores = {"a": {"answer/f1": [1.0, None, 1.0]}, "b": {"answer/f1": [0.0, 0.0, math.nan]}}
    assert eliminate(scores, rule(2), 1) == ("a", [])
    with pytest.raises(ValueError, match="different numbers"):
        eliminate({"a": {"answer/f1": [1.0] * 20}, "b": {"answer/f1": [0.0] * 19}}, rule(2), 1)
    with pytest.raises(ValueError, match="b: answer/f1"):
        eliminate({"a": {"answer/f1": [1.0] * 20}, "b": {}}, rule(2), 1)


def test_race_record_counts_evaluations_and_failures():
    race = Race(["a", "b", "c"], [20, 40], rule(), total_questions=40)
    race.finish_round({"a": {"answer/f1": [1.0] * 20}, "b": {"answer/f1": [0.0] * 20}}, {"c": "RuntimeError: x"})
    assert race.survivors == ["a"] and race.done and race.champion == "a"
    assert [race.eliminated_round(n) for n in "abc"] == [0, 1, 1] and race.evaluations == 60
    record = race.to_dict()
    assert record["grid_evaluations"] == 120 and record["runs"]["b"] == {"questions": 20, "eliminated_round": 1}
    lines = round_lines(record)
    assert "60 of 120 question-evaluations (50% of the grid)" in lines[0]
    assert any(line.startswith("    eliminated c: failed: RuntimeError") for line in lines)
    assert any(line.startswith("    eliminated b: worse than a on answer/f1") for line in lines)
