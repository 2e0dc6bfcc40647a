"""harness.api.decide: the decision for anyone's per-question scores, and the rules it shares with the
sweep, the front and the race."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from harness.api import decide
from harness.racing.elimination import EliminationRule, decisions
from harness.stats.front import compute_front
from harness.stats.front_axes import Axis, Resampling
from harness.stats.margin import judge
from harness.stats.spec import MetricSpec

N = 400


@pytest.fixture
def scores() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(0)
    base = rng.uniform(0.3, 0.9, N)
    return {"base": base, "copy": base + rng.normal(0, 0.01, N), "worse": base - 0.1 + rng.normal(0, 0.05, N),
            "better": base + 0.1 + rng.normal(0, 0.05, N), "noisy": base + rng.normal(0, 0.5, N)}


def test_a_mapping_and_a_dataframe_give_the_same_decision(scores):
    a = decide(scores, champion="base")
    b = decide(pd.DataFrame(scores), champion="base")
    pd.testing.assert_frame_equal(a.verdicts, b.verdicts)
    assert a.verdicts["verdict"].to_dict() == {"copy": "equivalent", "worse": "worse", "better": "better",
                                               "noisy": "undecided"}
    assert a.verdicts["winner"].to_dict() == {"copy": "none", "worse": "champion", "better": "challenger",
                                              "noisy": "none"}
    assert a.ship == ["base", "copy", "better"] and a.undecided == ["noisy"]
    assert set(a.verdicts.columns) >= {"diff", "ci_low", "ci_high", "ci_level", "p", "p_adjusted", "verdict",
                                       "questions_needed", "reason"}
    assert a.verdicts.loc["noisy", "questions_needed"] > N and np.isnan(a.verdicts.loc["copy", "questions_needed"])
    json.dumps(a.to_dict())


def test_the_champion_is_the_best_mean_in_the_metrics_direction(scores):
    assert decide(scores).champion == "better"
    assert decide({k: -v for k, v in scores.items()}, direction="lower").champion == "better"


def test_nan_drops_only_that_questions_pair(scores):
    holed = dict(scores, copy=np.where(np.arange(N) < 50, np.nan, scores["copy"]))
    found = decide(holed, champion="base").verdicts
    assert found.loc["copy", "n"] == N - 50 and found.loc["worse", "n"] == N


def test_a_guard_shown_worse_gives_the_champion_the_win_and_keeps_the_run_from_shipping(scores):
    faithfulness = {name: np.full(N, 0.9) for name in scores} | {"better": np.full(N, 0.9) - np.linspace(0, 0.2, N)}
    found = decide(scores, champion="base",
                   guards={"faithfulness": {"values": faithfulness, "margin": 0.02, "direction": "higher"}})
    assert found.verdicts.loc["better", "winner"] == "champion" and "guard faithfulness worse" in \
        found.verdicts.loc["better", "winner_reason"]
    assert "better" not in found.ship
    guards = [c for c in found.comparisons if c.spec.role == "guard"]
    assert {c.challenger: c.decision.verdict for c in guards}["copy"] == "equivalent"


def test_costs_draw_the_front_with_the_pairs_at_their_share_of_the_budget(scores):
    costs = {"usd": {"base": np.full(N, 3.0), "copy": np.full(N, 1.0) + np.linspace(0, 0.01, N),
                     "worse": np.full(N, 0.5), "better": np.full(N, 3.0), "noisy": np.full(N, 0.2)}}
    found = decide(scores, champion="base", costs=costs)
    assert found.ship == ["better", "copy"] and found.undecided == ["noisy"]
    assert found.verdicts["ci_level"].iloc[0] == pytest.approx(0.05 * 0.5 / 4)  # half the budget, 4 comparisons
    assert "lower on usd" in found.front.reason("copy")


def test_point_4_a_run_that_is_not_shown_as_good_hides_no_ship_candidate():
    """A is equivalent to the champion and 1.5x cheaper; B is undecided against the champion but shown
    as good as A and cheaper still: A ships, B is listed as undecided."""
    rng = np.random.default_rng(1)
    quality = rng.uniform(0.4, 0.9, 60)
    tables = {name: [{"question_id": f"q{i}", "f1": float(q), "usd": cost} for i, q in enumerate(quality)]
              for name, cost in (("champion", 3.0), ("a", 2.0), ("b", 1.0))}
    v = {"equivalent": judge(0.0, (-0.005, 0.005), 0.01, "higher"),
         "undecided": judge(0.0, (-0.05, 0.05), 0.01, "higher")}
    relations = {("champion", "a"): {"f1": v["equivalent"]}, ("a", "champion"): {"f1": v["equivalent"]},
                 ("champion", "b"): {"f1": v["undecided"]}, ("b", "champion"): {"f1": v["undecided"]},
                 ("a", "b"): {"f1": v["equivalent"]}, ("b", "a"): {"f1": v["equivalent"]}}
    front = compute_front(tables, {}, MetricSpec("f1", role="primary", margin=0.01), "champion", relations,
                          [Axis("usd", metrics=("usd",), better="cheaper")], Resampling(200, 0.05, 0), 1.25)
    assert front.members == ["a"] and front.undecided == ["b"]
    assert front.run("champion").dominated_by == "a" and front.run("a").dominated_by is None


def test_the_race_reads_the_same_rule_on_its_time_uniform_interval():
    primary = MetricSpec("f1", "higher", "primary", margin=0.05)
    rule = EliminationRule(primary, (), alpha=0.05, test="empirical_bernstein", low=-1.0, high=1.0,
                           min_questions=10, configurations=3, evidence="pairwise", decide="front")
    rng = np.random.default_rng(2)
    good = rng.uniform(0.4, 0.9, 3000)
    scores = {"lead": {"f1": list(good)}, "same": {"f1": list(good + rng.normal(0, 0.02, 3000))},
              "short": {"f1": list(good[:3]) + [None] * 2997},
              "few": {"f1": list(good[:40] + rng.normal(0, 0.05, 40)) + [None] * 2960},
              "far": {"f1": list(good - 0.3)}}
    found = decisions(scores, rule, "lead")
    assert found == {"same": "equivalent", "short": "undecided", "few": "undecided", "far": "worse"}


def test_a_copy_with_1_percent_of_answers_changed_is_equivalent_at_10000_questions_and_a_weaker_system_worse():
    """The SQuAD check of the last round, on exact-match-like scores: 1% of the answers changed (half
    of them now right, half now wrong) is equivalent at margin 0.01; 5 points weaker is worse."""
    rng = np.random.default_rng(3)
    system = (rng.uniform(size=10_000) < 0.7).astype(float)
    changed = system.copy()
    flip = rng.choice(10_000, 100, replace=False)
    changed[flip] = 1 - changed[flip]
    weaker = np.where(rng.uniform(size=10_000) < 0.07, 0.0, system)
    found = decide({"system": system, "copy": changed, "weaker": weaker}, champion="system")
    assert found.verdicts["verdict"].to_dict() == {"copy": "equivalent", "weaker": "worse"}


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"values": {"a": [1.0, 2.0], "b": [1.0]}}, "aligned by position; got lengths"),
        ({"values": {"a": [1.0, 2.0]}}, "at least two configurations"),
        ({"values": [1.0, 2.0]}, "must be a mapping"),
        ({"values": {"a": [1.0, "x"], "b": [1.0, 2.0]}}, "must be numbers"),
        ({"champion": "z"}, "champion 'z' is not among"),
        ({"margin": -1.0}, "margin must be"),
        ({"correction": "sidak"}, "correction must be one of"),
        ({"test": "z"}, "test must be one of"),
        ({"guards": {"g": {"values": {"a": [1.0, 2.0]}}}}, r"guards\['g'\]\['values'\]"),
        ({"guards": {"g": [1.0]}}, r"guards\['g'\] must be a mapping"),
        ({"costs": {"usd": {"a": [1.0, 2.0], "c": [1.0, 1.0]}}}, r"costs\['usd'\] must give every configuration"),
        ({"pairs_share": 1.0}, "pairs_share must be"),
    ],
)
def test_bad_arguments_are_refused_naming_them(kwargs, match):
    arguments = {"values": {"a": [1.0, 2.0, 3.0], "b": [1.5, 2.5, 3.5]}} | kwargs
    with pytest.raises(ValueError, match=match):
        decide(arguments.pop("values"), **arguments)
