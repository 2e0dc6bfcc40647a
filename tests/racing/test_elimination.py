"""One round's decisions: the leader, guard regressions, failures, and the record the console reads."""

import math

import numpy as np
import pytest

from harness.racing.elimination import EliminationRule, eliminate
from harness.racing.race import Race, round_lines
from harness.stats.spec import MetricSpec

PRIMARY = MetricSpec("answer/f1", "higher", "primary")
GUARD = MetricSpec("generation/latency", "lower", "guard", margin=0.1)


def rule(configurations=3, guards=(), evidence="leader", test="betting"):
    return EliminationRule(PRIMARY, tuple(guards), alpha=0.05, test=test, low=0.0, high=1.0,
                           min_questions=10, configurations=configurations, evidence=evidence)


def test_family_is_every_ordered_pair_on_every_metric():
    assert rule(3).comparisons == 6 and rule(3, [GUARD]).comparisons == 12
    assert rule(3, [GUARD]).level == pytest.approx(0.05 / 12)
    # bets on the running leader: one hypothesis per configuration ("it is a best one") on each raced metric
    assert rule(3).configuration_level == pytest.approx(0.05 / 3)
    assert rule(3, [GUARD]).configuration_level == pytest.approx(0.05 / 6)
    with pytest.raises(ValueError, match="race.evidence"):
        rule(evidence="pooled")


@pytest.mark.parametrize("evidence", ["leader", "pairwise"])
def test_clear_loser_leaves_equal_ones_stay(evidence):
    rng = np.random.default_rng(0)
    good = rng.uniform(0.6, 1.0, 200)
    scores = {"a": {"answer/f1": list(good)}, "b": {"answer/f1": list(good - 0.5)},
              "c": {"answer/f1": list(np.clip(good + rng.normal(0, 0.01, 200), 0, 1))}}
    leader, gone = eliminate(scores, rule(evidence=evidence), round_number=2)
    assert leader in ("a", "c") and [e.name for e in gone] == ["b"]
    assert gone[0].round == 2 and gone[0].questions == 200 and gone[0].mean_difference == pytest.approx(0.5)
    if evidence == "pairwise":
        assert 0 < gone[0].bound < 0.5 and "lower bound" in gone[0].reason and math.isnan(gone[0].e_value)
    else:
        assert gone[0].e_value >= gone[0].threshold == 3 / 0.05 and math.isnan(gone[0].bound)
        assert f"worse than {leader} on answer/f1 after 200 questions: mean difference 0.5000, wealth" in gone[0].reason
        assert "betting on the running leader" in gone[0].reason


def first_elimination(scores: dict, evidence: str, configurations: int, test: str = "betting") -> int:
    """The first prefix length after which ``loser`` leaves (0: never)."""
    n = len(scores["loser"]["answer/f1"])
    for t in range(10, n + 1):
        prefix = {name: {"answer/f1": metric["answer/f1"][:t]} for name, metric in scores.items()}
        if any(e.name == "loser" for e in eliminate(prefix, rule(configurations, evidence=evidence, test=test), 1)[1]):
            return t
    return 0


@pytest.mark.parametrize("test", ["betting", "empirical_bernstein"])
def test_bets_on_the_running_leader_drop_a_loser_sooner(test):
    # Eight configurations, seven of them equal, one trailing all by 0.3 on average.
    rng = np.random.default_rng(2)
    base = rng.uniform(0.3, 1.0, 200)
    scores = {f"rival_{i}": {"answer/f1": list(np.clip(base + rng.normal(0, 0.05, 200), 0, 1))} for i in range(7)}
    scores["loser"] = {"answer/f1": list(np.clip(base - 0.3 + rng.normal(0, 0.05, 200), 0, 1))}
    leader, pairwise = first_elimination(scores, "leader", 8, test), first_elimination(scores, "pairwise", 8, test)
    assert 0 < leader < pairwise
    # the level is alpha / K for the K that started: with 30 starters the loser needs more questions
    assert first_elimination(scores, "leader", 30, test) > leader


def test_bets_on_the_running_leader_when_one_rival_is_far_ahead():
    # One rival far ahead, the others level with the loser: the running leader is that rival, so the
    # bets are the pair's own, against K / alpha instead of the pairwise rule's K (K - 1) / alpha.
    for seed in range(5):
        rng = np.random.default_rng(seed)
        base = rng.uniform(0.0, 0.6, 120)
        scores = {"ahead": {"answer/f1": list(np.clip(base + 0.4, 0, 1))}, "loser": {"answer/f1": list(base)}}
        scores |= {f"level_{i}": {"answer/f1": list(np.clip(base + rng.normal(0, 0.02, 120), 0, 1))} for i in range(4)}
        leader, pairwise = first_elimination(scores, "leader", 6), first_elimination(scores, "pairwise", 6)
        assert 0 < leader < pairwise


@pytest.mark.parametrize("evidence", ["leader", "pairwise"])
def test_guard_regression_beyond_margin_eliminates(evidence):
    primary = [0.5] * 150
    scores = {"fast": {"answer/f1": primary, "generation/latency": [0.1] * 150},
              "slow": {"answer/f1": primary, "generation/latency": [0.9] * 150},
              "bit_slower": {"answer/f1": primary, "generation/latency": [0.15] * 150}}
    leader, gone = eliminate(scores, rule(3, [GUARD], evidence), 1)
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
    assert "bets on the running leader, wealth >= 60 eliminates" in lines[0] and record["evidence"] == "leader"


def test_deciding_the_front_keeps_a_slightly_worse_configuration_until_it_is_decided():
    """``decide: front``: a configuration 0.03 worse stays while the margin (0.05) is not crossed, and is
    shown equivalent (a difference inside the margin) once there are enough questions; one 0.3 worse leaves. ``decide: winner`` drops
    the slightly worse one as soon as it is shown worse at all."""
    primary = MetricSpec("answer/f1", "higher", "primary", margin=0.05)
    rng = np.random.default_rng(4)
    good = rng.uniform(0.4, 0.9, 3000)
    scores = {"lead": {"answer/f1": list(good)}, "near": {"answer/f1": list(good - 0.03)},
              "far": {"answer/f1": list(good - 0.3)}}

    def race_rule(decide: str) -> EliminationRule:
        return EliminationRule(primary, (), alpha=0.05, test="empirical_bernstein", low=-1.0, high=1.0,
                               min_questions=10, configurations=3, evidence="leader", decide=decide)

    _, gone = eliminate(scores, race_rule("winner"), 1)
    assert sorted(e.name for e in gone) == ["far", "near"]
    _, gone = eliminate(scores, race_rule("front"), 1)
    assert [e.name for e in gone] == ["far"] and gone[0].threshold == 0.05 and "lower bound" in gone[0].reason
    from harness.racing.elimination import decisions

    # shown 0.03 worse, inside the 0.05 margin: equivalent, as the sweep reads it (harness.stats.margin)
    assert decisions({n: s for n, s in scores.items() if n != "far"}, race_rule("front"), "lead") == {
        "near": "equivalent"}
    few = {n: {"answer/f1": s["answer/f1"][:30]} for n, s in scores.items() if n != "far"}
    assert decisions(few, race_rule("front"), "lead") == {"near": "undecided"}  # too few questions to decide
    race = Race(["lead", "near", "far"], [30, 3000], race_rule("front"), 3000)
    race.finish_round({n: {"answer/f1": s["answer/f1"][:30]} for n, s in scores.items()})
    race.finish_round(scores)
    record = race.to_dict()
    assert record["decisions"] == {"lead": "leader", "near": "equivalent", "far": "worse beyond the margin"}
    lines = round_lines(record)
    assert "  decisions reached against the leader: near: equivalent; far: worse beyond the margin" in lines
    assert "  too few questions to decide: none" in lines
    with pytest.raises(ValueError, match="race.decide"):
        race_rule("cheapest")
