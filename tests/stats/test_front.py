"""The ship-candidate front on constructed sweeps whose answer is known."""

from __future__ import annotations

import numpy as np
import pytest
from hydra.utils import instantiate
from scipy import stats as scipy_stats

from harness.stats.front import Front, choose_axes
from harness.stats.front_axes import Axis, Resampling, compare_on_axis, paired_difference
from tests.stats.test_report import settings

N = 40
COST = Axis("cost", metrics=("generation/cost_usd",), scale=1000, unit="USD per 1k questions", better="cheaper")
FRONT = {"enabled": True, "resamples": 500, "alpha": 0.05, "seed": 0, "min_questions": 5, "min_ratio": 1.25,
         "answering": [{"name": "cost", "metrics": ["generation/cost_usd"], "scale": 1000, "better": "cheaper"},
                       {"name": "compute", "metrics": ["generation/seconds_per_answer_batched"], "scale": 1000,
                        "unless": "cost", "better": "cheaper"},
                       {"name": "latency_p95", "metrics": ["generation/latency_seconds"], "statistic": "p95",
                        "better": "faster at p95"}],
         "retrieval": [{"name": "retrieval_latency", "info": "retrieval_seconds_per_query", "better": "faster"},
                       {"name": "index_memory", "info": "index_bytes", "better": "smaller"}]}


def run(quality: np.ndarray, cost: float, latency: float = 1.0, seed: int = 0) -> list[dict]:
    """A run's per-question rows: answer/f1 as given, a noisy cost around ``cost`` dollars per answer."""
    rng = np.random.default_rng(seed)
    return [{"question_id": f"q{i:02d}", "answer": "an answer", "answer/f1": float(q),
             "generation/cost_usd": cost * (1 + 0.05 * rng.standard_normal()),
             "generation/latency_seconds": latency * (1 + 0.05 * rng.standard_normal())}
            for i, q in enumerate(quality)]


def tied(quality: np.ndarray, seed: int) -> np.ndarray:
    """``quality`` with per-question noise, a little lower on average: tied with it, never the champion."""
    noise = np.random.default_rng(seed).normal(0, 0.02, len(quality))
    return quality + noise - noise.mean() - 0.002


def front_of(tables: dict[str, list[dict]], infos: dict | None = None, margin: float = 0.05, **changes) -> Front:
    statistics = settings(primary={"name": "answer/f1", "direction": "higher", "margin": margin},
                          **{"guards": [], "front": FRONT, **changes})
    report = statistics.compare(tables)
    return statistics.ship_front(tables, infos or {}, report)


@pytest.fixture
def quality() -> np.ndarray:
    return np.random.default_rng(1).uniform(0.4, 0.9, N)


def test_an_equivalent_cheaper_run_is_on_the_front_and_a_worse_dearer_one_is_not(quality):
    front = front_of({"best": run(quality, 0.003, seed=1), "cheap": run(tied(quality, 2), 0.001, seed=2),
                      "bad": run(tied(quality, 3) - 0.3, 0.004, seed=3)})
    assert front.champion == "best"
    assert front.members == ["cheap"]
    assert front.run("cheap").versus_champion == "equivalent" and front.run("bad").versus_champion == "worse"
    assert front.run("best").dominated_by == "cheap" and front.run("bad").dominated_by in ("best", "cheap")
    ratio = front.run("cheap").ratios["cost"]
    assert ratio == pytest.approx(3.0, rel=0.1)
    assert front.reason("cheap") == f"equivalent to the champion at margin 0.05, {ratio:.1f}x cheaper"
    assert front.reason("bad", {"best": "B", "cheap": "C"}) in ("dominated by B", "dominated by C")
    # dollars per 1,000 questions, with the bootstrap interval around the mean
    cost = front.run("cheap").axes["cost"]
    assert cost.value == pytest.approx(1000 * np.mean([r["generation/cost_usd"] for r in run(tied(quality, 2), 0.001,
                                                                                            seed=2)]))
    assert cost.low < cost.value < cost.high


def test_an_equivalent_equally_priced_run_does_not_dominate(quality):
    front = front_of({"best": run(quality, 0.002, seed=1), "twin": run(tied(quality, 3), 0.002, seed=2)})
    assert sorted(front.members) == ["best", "twin"]
    assert front.reason("best") == "the champion (best answer/f1)"
    assert front.reason("twin") == ("equivalent to the champion at margin 0.05, none as good is lower on cost or "
                                    "latency beyond noise")


def test_significantly_better_quality_dominates_at_the_same_price(quality):
    front = front_of({"best": run(quality, 0.002, seed=1), "worse": run(tied(quality, 2) - 0.2, 0.002, seed=2)})
    assert front.members == ["best"] and front.run("worse").dominated_by == "best"


def test_worse_but_cheaper_is_no_candidate_and_slower_beyond_noise_blocks_dominance(quality):
    front = front_of({"best": run(quality, 0.003, seed=1), "cheap": run(tied(quality, 2) - 0.2, 0.001, seed=2)})
    assert front.members == ["best"] and front.undecided == []  # shown worse: neither a candidate nor undecided
    assert front.run("cheap").dominated_by is None and front.reason("cheap").startswith("worse than the champion (3.")
    front = front_of({"best": run(quality, 0.003, seed=1),
                      "cheap_but_slow": run(tied(quality, 4), 0.001, latency=3.0, seed=2)})
    assert sorted(front.members) == ["best", "cheap_but_slow"]


def test_local_models_are_weighed_by_compute_seconds_and_retrieval_sweeps_by_run_figures(quality):
    tables = {name: [{**row, "generation/cost_usd": 0.0, "generation/seconds_per_answer_batched": seconds}
                     for row in run(quality, 0.0)] for name, seconds in (("a", 0.5), ("b", 0.1))}
    axes = [Axis(**{**a, "metrics": tuple(a.get("metrics", ()))}) for a in FRONT["answering"]]
    assert [a.name for a in choose_axes(tables, {}, axes, [])] == ["compute", "latency_p95"]
    front = front_of(tables)
    assert front.members == ["b"] and front.reason("b") == "equivalent to the champion at margin 0.05, 5.0x cheaper"

    retrieval = {name: [{"question_id": row["question_id"], "answer/f1": row["answer/f1"]} for row in run(quality, 0)]
                 for name in ("a", "b")}
    infos = {"a": {"retrieval_seconds_per_query": 0.010, "index_bytes": 1_000_000},
             "b": {"retrieval_seconds_per_query": 0.011, "index_bytes": 4_000_000}}
    front = front_of(retrieval, infos)
    assert [a.name for a in front.axes] == ["retrieval_latency", "index_memory"]
    # 1.1x slower is within noise (min_ratio 1.25); 4x the memory is not
    assert front.members == ["a"] and front.reason("a") == "the champion (best answer/f1)"


def test_run_level_axes_compare_by_ratio_and_per_question_axes_by_paired_bootstrap():
    memory = Axis("index_memory", info="index_bytes")
    resampling = Resampling(200, 0.05, 0, 5)
    assert compare_on_axis(memory, 100.0, 124.0, resampling, 1.25) == 0
    assert compare_on_axis(memory, 100.0, 125.0, resampling, 1.25) == 1
    assert compare_on_axis(memory, 0.0, 0.0, resampling, 1.25) == 0
    assert compare_on_axis(memory, 5.0, 0.0, resampling, 1.25) == -1
    a = {f"q{i}": 1.0 for i in range(4)}
    assert compare_on_axis(COST, a, {q: 0.1 for q in a}, resampling, 1.25) == 0  # 4 < min_questions


def test_the_paired_interval_equals_scipys_paired_percentile_bootstrap():
    rng = np.random.default_rng(5)
    x, y = rng.uniform(0, 1, 30), rng.uniform(0, 1, 30)
    a, b = ({f"q{i:02d}": v for i, v in enumerate(values)} for values in (x, y))  # in x's order once sorted
    for axis in (COST, Axis("p95", metrics=("m",), statistic="p95")):
        _, low, high = paired_difference(axis, a, b, Resampling(999, 0.1, 7, 2))
        expected = scipy_stats.bootstrap((x, y), _difference(axis), paired=True,
                                         vectorized=True, n_resamples=999, confidence_level=0.9, method="percentile",
                                         rng=np.random.default_rng(7)).confidence_interval
        assert (low, high) == pytest.approx((expected.low, expected.high), abs=1e-12)


def _difference(axis: Axis):
    def statistic(p, q, axis_index=-1):
        return axis.summarise(q, axis=axis_index) - axis.summarise(p, axis=axis_index)

    return lambda p, q, axis=-1: statistic(p, q, axis)


def test_the_front_round_trips_through_json(quality):
    import json

    front = front_of({"best": run(quality, 0.003, seed=1), "cheap": run(quality, 0.001, seed=2)})
    again = Front.from_dict(json.loads(json.dumps(front.to_dict())))
    assert again == front and again.to_dict()["members"] == ["cheap"]


def test_bad_axes_are_refused_naming_the_key():
    with pytest.raises(ValueError, match=r"stats.front.answering\[0\].*statistic must be 'mean' or a percentile"):
        settings(front={**FRONT, "answering": [{"name": "x", "metrics": ["m"], "statistic": "median"}]})
    with pytest.raises(ValueError, match=r"retrieval\[0\].*not both or neither"):
        settings(front={**FRONT, "retrieval": [{"name": "x"}]})
    with pytest.raises(ValueError, match="stats.front.min_ratio must be a number >= 1"):
        settings(front={**FRONT, "min_ratio": 0.5})


def test_the_configured_front_composes(compose):
    statistics = instantiate(compose(["experiment=demo_sweep"]).stats)
    assert statistics.front.enabled and statistics.front.resampling.resamples == statistics.resamples
    assert [a.name for a in statistics.front.answering] == ["cost", "compute", "latency_p50", "latency_p95",
                                                            "ttft_p50"]


def test_not_significantly_worse_is_not_as_good_a_cheaper_undecided_run_is_listed_apart(quality):
    """The issue's case: a cheaper run whose interval reaches beyond the margin is no ship candidate."""
    noisy = quality + np.random.default_rng(7).normal(0, 0.15, len(quality))
    noisy += -0.02 - (noisy - quality).mean()  # 0.02 worse on average, wide interval
    front = front_of({"best": run(quality, 0.003, seed=1), "cheap": run(noisy, 0.001, seed=2)}, margin=0.01)
    cheap = front.run("cheap")
    assert cheap.versus_champion == "undecided" and front.members == ["best"] and front.undecided == ["cheap"]
    assert cheap.questions_needed > N
    assert front.reason("cheap") == (f"undecided against the champion: {cheap.ratios['cost']:.1f}x cheaper; about "
                                     f"{cheap.questions_needed} paired questions would decide it")
    record = front.to_dict()
    assert record["undecided"] == ["cheap"] and record["runs"][1]["versus_champion"] == "undecided"
    assert Front.from_dict(record).undecided == ["cheap"]


def test_shown_worse_within_the_margin_is_equivalent_and_a_guard_shown_worse_is_no_candidate(quality):
    """A difference shown but smaller than the margin is equivalent (CONSORT's reading): the cheaper
    run ships; a guard shown worse keeps a run off the front."""
    slightly = quality - 0.004 + np.random.default_rng(3).normal(0, 0.001, len(quality))  # worse, but by < margin
    front = front_of({"best": run(quality, 0.003, seed=1), "cheap": run(slightly, 0.001, seed=2)}, margin=0.05)
    cheap = front.run("cheap")
    assert cheap.versus_champion == "equivalent" and cheap.dominated_by is None
    assert front.run("best").dominated_by == "cheap" and front.members == ["cheap"]
    tables = {"best": run(quality, 0.003, seed=1), "cheap": run(tied(quality, 2), 0.001, seed=2)}
    for name, shift in (("best", 0.0), ("cheap", -0.3)):
        for row in tables[name]:
            row["judge/faithfulness"] = 0.9 + shift
    guarded = front_of(tables, guards=[{"name": "judge/faithfulness", "direction": "higher", "margin": 0.05}])
    assert guarded.run("cheap").worse_guards == ["judge/faithfulness"] and guarded.members == ["best"]


def test_a_timing_advantage_needs_min_ratio_as_well_as_the_interval():
    latency = Axis("latency_p50", metrics=("t",), statistic="p50", timing=True)
    resampling = Resampling(200, 0.05, 0, 5)
    a = {f"q{i}": 1.0 + 0.01 * i for i in range(30)}
    assert compare_on_axis(latency, a, {q: v * 0.9 for q, v in a.items()}, resampling, 1.25) == 0  # 1.1x: drift
    assert compare_on_axis(COST, a, {q: v * 0.9 for q, v in a.items()}, resampling, 1.25) == -1  # not timing
    assert compare_on_axis(latency, a, {q: v * 0.5 for q, v in a.items()}, resampling, 1.25) == -1
    assert compare_on_axis(latency, {q: v * 0.5 for q, v in a.items()}, a, resampling, 1.25) == 1
    # 1.33x at the point, but the per-question spread puts the ratio's interval below 1.25: not counted
    rng = np.random.default_rng(0)
    noisy = {q: v * 0.75 * rng.lognormal(0, 0.4) for q, v in a.items()}
    assert compare_on_axis(latency, a, noisy, resampling, 1.25) == 0
    assert compare_on_axis(COST, a, noisy, resampling, 1.25) in (-1, 0)  # not timing: the difference alone
