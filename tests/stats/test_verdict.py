"""One constructed case per branch of the seed 003 (7.5) winner rule."""

import pytest

from harness.stats.spec import MetricSpec
from harness.stats.verdict import MetricEvidence, Verdict, decide

F1 = MetricSpec("answer/f1", direction="higher", role="primary")
FAITH = MetricSpec("judge/faithfulness", direction="higher", role="guard", margin=0.01)
LATENCY = MetricSpec("latency_ms", direction="lower", role="guard", margin=50.0)
RECALL = MetricSpec("retrieval/recall_at_5", role="secondary")


def _decide(*evidence):
    return decide(list(evidence), alpha=0.05, power=0.8)


def test_guard_regression_beats_a_better_primary():
    verdict = _decide(MetricEvidence(F1, 0.05, 0.001, n=100), MetricEvidence(FAITH, -0.04, 0.01, n=100))
    assert verdict == Verdict("champion", "guard judge/faithfulness regressed by 0.04 (p=0.01 < alpha=0.05)")


def test_lower_is_better_guard_regresses_when_it_grows():
    verdict = _decide(MetricEvidence(F1, 0.05, 0.001), MetricEvidence(LATENCY, 120.0, 0.0001))
    assert verdict.winner == "champion" and verdict.reason.startswith("guard latency_ms regressed by 120")


def test_guard_within_margin_or_not_significant_does_not_regress():
    within = MetricEvidence(FAITH, -0.005, 0.0001)  # significant, but less than the 0.01 margin
    noisy = MetricEvidence(LATENCY, 500.0, 0.2)  # much worse, not significant
    improved = MetricEvidence(MetricSpec("g", role="guard"), 0.3, 0.0001)
    untestable = MetricEvidence(MetricSpec("h", role="guard"), None, None, "not testable: all differences zero")
    verdict = _decide(MetricEvidence(F1, 0.05, 0.001), within, noisy, improved, untestable)
    assert verdict.winner == "challenger"


def test_challenger_better_on_primary():
    verdict = _decide(MetricEvidence(F1, 0.032, 0.004, n=100), MetricEvidence(FAITH, 0.0, 0.9))
    assert verdict == Verdict("challenger", "answer/f1 better for the challenger by 0.032 (p=0.004 < alpha=0.05)")


def test_champion_better_on_primary():
    verdict = _decide(MetricEvidence(F1, -0.03, 0.02, n=100))
    assert verdict == Verdict("champion", "answer/f1 worse for the challenger by 0.03 (p=0.02 < alpha=0.05)")


def test_lower_is_better_primary():
    primary = MetricSpec("latency_ms", direction="lower", role="primary")
    assert _decide(MetricEvidence(primary, -30.0, 0.01)).winner == "challenger"
    assert _decide(MetricEvidence(primary, 30.0, 0.01)).winner == "champion"


def test_not_significant_reports_the_sample_size_needed():
    primary = MetricEvidence(F1, 0.032, 0.12, effect_size=0.2, n=100, n_required=197)
    verdict = _decide(primary, MetricEvidence(RECALL, -0.2, 0.0001))  # a secondary metric has no say
    assert verdict.winner == "none"
    assert verdict.reason == (
        "no significant difference in answer/f1 (p=0.12 >= alpha=0.05, n=100); "
        "detecting the observed effect (d=0.2) with power 0.8 needs about 197 paired questions"
    )


def test_not_significant_with_zero_effect():
    verdict = _decide(MetricEvidence(F1, 0.0, 1.0, effect_size=0.0, n=10))
    assert verdict.winner == "none" and "no sample size would detect it" in verdict.reason


def test_primary_untestable():
    reason = "not testable: fewer than 2 paired questions (n=1)"
    verdict = _decide(MetricEvidence(F1, 0.2, None, reason, n=1))
    assert verdict == Verdict("none", f"no significant difference: primary answer/f1 {reason}")


def test_guard_regression_still_wins_when_primary_untestable():
    untestable = MetricEvidence(F1, None, None, "not testable: all differences zero")
    verdict = _decide(untestable, MetricEvidence(FAITH, -0.1, 0.001))
    assert verdict.winner == "champion"


def test_significant_rank_test_with_tied_means_names_no_winner():
    verdict = _decide(MetricEvidence(F1, 0.0, 0.01))
    assert verdict.winner == "none" and "mean difference is zero" in verdict.reason


def test_several_guard_regressions_are_all_named():
    regressions = MetricEvidence(FAITH, -0.1, 0.01), MetricEvidence(LATENCY, 99.0, 0.02)
    verdict = _decide(MetricEvidence(F1, 0.1, 0.01), *regressions)
    assert "judge/faithfulness" in verdict.reason and "latency_ms" in verdict.reason


@pytest.mark.parametrize("primaries", [0, 2])
def test_exactly_one_primary(primaries):
    evidence = [MetricEvidence(F1, 0.1, 0.01)] * primaries + [MetricEvidence(FAITH, 0.0, 0.5)]
    with pytest.raises(ValueError, match="exactly one primary"):
        _decide(*evidence)


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"direction": "up"}, "direction"),
        ({"role": "main"}, "role"),
        ({"margin": -1.0}, "margin"),
        ({"name": ""}, "name"),
    ],
)
def test_metric_spec_is_validated(kwargs, name):
    with pytest.raises(ValueError, match=name):
        MetricSpec(**({"name": "m"} | kwargs))
