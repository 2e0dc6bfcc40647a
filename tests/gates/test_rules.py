"""Gate rules: bounds, significant regressions (paired t-test as scipy computes it), bad rules."""

from __future__ import annotations

import pytest
from hydra.errors import ConfigCompositionException
from hydra.utils import instantiate
from scipy import stats

from harness.gates.rules import Gates

BASELINE = [{"question_id": f"q{i}", "answer/f1": v} for i, v in enumerate([0.9, 0.8, 0.7, 0.9, 0.6])]
WORSE = [{"question_id": f"q{i}", "answer/f1": v} for i, v in enumerate([0.5, 0.4, 0.5, 0.6, 0.3])]
NOISY = [{"question_id": f"q{i}", "answer/f1": v} for i, v in enumerate([0.95, 0.7, 0.75, 0.85, 0.6])]


def test_bounds_fail_one_line_per_run_and_gate():
    gates = Gates(rules=[{"metric": "answer/f1", "min": 0.6}, {"metric": "judge/cost", "max": 1.0}], alpha=0.05)
    failures = gates.check({"a": {"answer/f1": 0.59, "judge/cost": 0.5}, "b": {"answer/f1": 0.6}}, tables={})
    assert failures == ["gate answer/f1 >= 0.6 failed: run a has 0.5900",
                        "gate judge/cost <= 1 failed: run b has no judge/cost"]


def test_a_significant_regression_fails_with_scipys_p_value():
    gates = Gates(rules=[{"metric": "answer/f1", "no_significant_regression_vs": "champion"}], alpha=0.05)
    worse = [r["answer/f1"] for r in WORSE]
    expected_p = stats.ttest_rel(worse, [r["answer/f1"] for r in BASELINE]).pvalue
    assert expected_p < 0.05
    (failure,) = gates.check({"new": {}, "noisy": {}}, tables={"new": WORSE, "noisy": NOISY},
                             baselines={"champion": BASELINE})
    assert failure == ("gate answer/f1 no significant regression vs champion failed: run new is significantly "
                       f"worse: mean difference -0.3200 over 5 questions, paired t-test p={expected_p:.4g} < 0.05")


def test_lower_is_better_and_a_missing_baseline():
    gates = Gates(rules=[{"metric": "answer/f1", "no_significant_regression_vs": "champion",
                          "direction": "lower"}], alpha=0.05)
    assert gates.check({"new": {}}, tables={"new": WORSE}, baselines={"champion": BASELINE}) == []
    assert gates.check({"new": {}}, tables={"new": WORSE}, baselines={}) == [
        "gate answer/f1 no significant regression vs champion failed: baseline run 'champion' not found"]


def test_different_questions_fail_the_gate_naming_the_ids():
    gates = Gates(rules=[{"metric": "answer/f1", "no_significant_regression_vs": "champion"}], alpha=0.05)
    (failure,) = gates.check({"new": {}}, tables={"new": WORSE[:4]}, baselines={"champion": BASELINE})
    assert "only in champion" in failure and "'q4'" in failure


def test_a_configuration_that_leaves_the_front_fails_its_gate():
    front = {"short": {"chunker=a,retriever=x": "a, x", "chunker=b,retriever=x": "b, x"},
             "runs": [{"name": "chunker=a,retriever=x", "front": True, "dominated_by": None},
                      {"name": "chunker=b,retriever=x", "front": False, "dominated_by": "chunker=a,retriever=x"}],
             "reasons": {"chunker=b,retriever=x": "dominated by a, x"}}
    gates = Gates(rules=[{"on_front": "chunker=a,retriever=x"}, {"on_front": "b, x"}, {"on_front": "c, x"}],
                  alpha=0.05)
    assert gates.check({}, tables={}, front=front) == [
        "gate b, x on the front failed: b, x left the front: dominated by a, x",
        "gate c, x on the front failed: 'c, x' is not among the compared configurations: a, x, b, x"]
    assert gates.check({}, tables={}) == [
        f"gate {name} on the front failed: no front was computed (a single run, or stats=none, or "
        "stats.front.enabled=false)" for name in ("chunker=a,retriever=x", "b, x", "c, x")]


@pytest.mark.parametrize("rule", [{"metric": "answer/f1"},
                                  {"metric": "answer/f1", "min": 0.5, "no_significant_regression_vs": "x"},
                                  {"metric": "answer/f1", "on_front": "x"}, {"min": 0.5}])
def test_a_rule_needs_exactly_one_kind_of_check(rule):
    with pytest.raises(ValueError, match=r"gates.rules\[0\]"):
        Gates(rules=[rule], alpha=0.05)


def test_gates_compose_and_a_misspelt_rule_key_fails_at_compose_time(compose):
    cfg = compose(["gates.rules=[{metric: answer/f1, min: 0.6}]"])
    gates = instantiate(cfg.gates)
    assert gates.enabled and gates.rules[0].min == 0.6 and gates.alpha == 0.05
    assert not instantiate(compose().gates).enabled
    with pytest.raises(ConfigCompositionException):
        compose(["gates.rules=[{metric: answer/f1, minimum: 0.6}]"])
    assert instantiate(compose(["gates.rules=[{on_front: 'recursive, hybrid'}]"]).gates).rules[0].on_front == \
        "recursive, hybrid"
