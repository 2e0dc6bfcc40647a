"""Seed 001's scoring rules with the numbers of conf/routes: the worked example, every
executive-format check, every bonus, the minimum-similarity rule, thresholds and the two-tier score."""

from __future__ import annotations

import pytest

from harness.metrics.routes import scoring

# Seed 001 section 7.2's component scores.
V86 = {"semantic_similarity": 0.40, "completeness": 0.65, "factual_accuracy": 0.75, "presentation": 0.90}
V87 = {"semantic_similarity": 0.60, "completeness": 0.65, "factual_accuracy": 0.75, "presentation": 0.90,
       "executive_format": 0.85}

# The seed's root-cause example answer (section 1).
SEED_ANSWER = ("**Performance Context:** RM 1.2M\n**Benchmarking:** vs 6-month avg (+12%)\n"
               "**Insights:** Cheese Burger drove growth")


def test_worked_example_v86_baseline_weights_give_0655_below_the_070_threshold(single):
    profile = single.profile_of(None)
    quality = scoring.weighted_quality(V86, profile.weights)
    assert quality == pytest.approx(0.655, abs=1e-12)
    assert profile.quality_threshold == 0.70 and quality < profile.quality_threshold


def test_worked_example_v87_kpi_weights_give_07325(kpi_rag):
    profile = kpi_rag.profile_of("sales_kpi")
    assert profile is kpi_rag.profile_of("hr_kpi")
    quality = scoring.weighted_quality(V87, profile.weights)
    assert quality == pytest.approx(0.7325, abs=1e-12)
    # Each term of the seed's sum: 0.09 + 0.1625 + 0.2625 + 0.09 + 0.1275.
    terms = [profile.weights[k] * V87[k] for k in V87]
    assert terms == pytest.approx([0.09, 0.1625, 0.2625, 0.09, 0.1275], abs=1e-12)
    assert quality >= profile.quality_threshold == 0.65
    assert quality - 0.655 == pytest.approx(0.0775, abs=1e-12)


def test_rag_weights_are_the_v86_weights_and_score_the_same(kpi_rag, single):
    assert kpi_rag.profile_of("rag_docs").weights == single.profile_of(None).weights
    assert scoring.weighted_quality(V86, kpi_rag.profile_of("rag_docs").weights) == pytest.approx(0.655)


def test_weighted_quality_renormalises_over_present_dimensions():
    weights = {"semantic_similarity": 0.25, "completeness": 0.30, "factual_accuracy": 0.30, "presentation": 0.15}
    dims = {"semantic_similarity": 0.8, "completeness": None, "factual_accuracy": 0.5, "presentation": 1.0}
    assert scoring.weighted_quality(dims, weights) == pytest.approx((0.25 * 0.8 + 0.30 * 0.5 + 0.15) / 0.70)
    assert scoring.weighted_quality({}, weights) is None


@pytest.mark.parametrize("answer, expected", [
    ("Revenue reached RM 1,200,000.", 0.30),         # numerical metric
    ("Revenue reached USD 1.2M.", 0.30),
    ("Revenue reached $1.2M.", 0.30),
    ("Revenue was 10% above the average.", 0.25),    # benchmarking
    ("Sales compared to last year look good.", 0.25),
    ("Revenue increased this month.", 0.25),         # trend
    ("The main driver was the new plan.", 0.20),     # strategic insight
    ("A clear opportunity for upselling.", 0.20),
    ("Nothing to report.", 0.0),
    ("rm 1,200,000 in sales.", 0.0),                 # the seed's regex is case-sensitive
    (SEED_ANSWER, 1.0),                              # 0.30 + 0.25 + 0.25 + 0.20
    ("$5 vs $4: growth driven by a benchmark insight, previous record broken.", 1.0),
])
def test_each_executive_format_check(kpi_rag, answer, expected):
    checks = kpi_rag.profile_of("sales_kpi").executive_format
    assert scoring.executive_format(answer, checks) == pytest.approx(expected)


def test_executive_format_is_one_for_non_kpi_routes(kpi_rag):
    assert kpi_rag.profile_of("rag_docs").executive_format is None
    assert scoring.executive_format("No figures at all.", None) == 1.0
    assert "executive_format" not in kpi_rag.profile_of("rag_docs").weights


@pytest.mark.parametrize("answer, bonus", [
    ("June revenue vs May.", 0.10),                  # benchmarking terms: average, vs, ranking
    ("Third in the regional ranking.", 0.10),
    ("Revenue growth continued.", 0.10),             # trend terms: trend, growth, change
    ("No change from May.", 0.10),
    ("x" * 300, 0.05),                               # an answer of 300+ characters
    ("x" * 299, 0.0),
    ("Above average, with a positive trend. " + "y" * 300, 0.25),
    ("Compared to May it increased.", 0.0),          # executive-format terms that are no bonus terms
])
def test_each_semantic_bonus(kpi_rag, answer, bonus):
    assert scoring.semantic_bonus(answer, kpi_rag.profile_of("hr_kpi").semantic_bonuses) == pytest.approx(bonus)


def test_rag_routes_get_no_bonus(kpi_rag):
    profile = kpi_rag.profile_of("rag_docs")
    assert scoring.semantic_bonus("average growth trend " + "z" * 400, profile.semantic_bonuses) == 0.0


def test_seed_kpi_example_039_plus_bonuses_is_064(kpi_rag):
    profile = kpi_rag.profile_of("sales_kpi")
    answer = SEED_ANSWER + " Average order value vs last month. " + "Detail. " * 30
    bonus = scoring.semantic_bonus(answer, profile.semantic_bonuses)
    assert bonus == pytest.approx(0.25)
    similarity, below = scoring.route_semantic_similarity(0.39, bonus, profile.min_semantic_similarity,
                                                          profile.below_minimum_floor)
    assert similarity == pytest.approx(0.64) and not below


@pytest.mark.parametrize("route, base, expected, below", [
    ("sales_kpi", 0.55, 0.55, False),   # KPI minimum 0.50
    ("sales_kpi", 0.45, 0.45, True),    # below: max(0.3, 0.45)
    ("sales_kpi", 0.20, 0.30, True),    # below: the 0.3 floor
    ("rag_docs", 0.80, 0.80, False),    # RAG minimum 0.75
    ("rag_docs", 0.72, 0.72, True),
    ("rag_docs", 0.10, 0.30, True),
    (None, 0.72, 0.72, False),          # unrouted: the universal 0.70
    (None, 0.69, 0.69, True),
])
def test_minimum_semantic_similarity_per_route(kpi_rag, route, base, expected, below):
    profile = kpi_rag.profile_of(route)
    got = scoring.route_semantic_similarity(base, 0.0, profile.min_semantic_similarity, profile.below_minimum_floor)
    assert got == (pytest.approx(expected), below)


def test_minimums_and_thresholds_come_from_the_yaml(kpi_rag):
    kpi, rag, unrouted = (kpi_rag.profile_of(r) for r in ("sales_kpi", "rag_docs", None))
    assert (kpi.min_semantic_similarity, rag.min_semantic_similarity, unrouted.min_semantic_similarity) == (
        0.50, 0.75, 0.70)
    assert (kpi.quality_threshold, rag.quality_threshold) == (0.65, 0.70)
    assert rag.minimum_from_question and not kpi.minimum_from_question
    assert (kpi_rag.two_tier.routing, kpi_rag.two_tier.quality, kpi_rag.two_tier.wrong_route) == (0.30, 0.70, 0.0)


def test_bonus_is_capped_at_one():
    assert scoring.route_semantic_similarity(0.9, 0.25, 0.5, 0.3) == (1.0, False)


def test_two_tier_right_and_wrong_route(kpi_rag):
    tier = kpi_rag.two_tier
    assert scoring.two_tier(True, 0.7325, tier.routing, tier.quality, tier.wrong_route) == pytest.approx(
        0.30 + 0.70 * 0.7325)
    # Seed 001: a wrong route scores 0.00, whatever the answer's quality.
    assert scoring.two_tier(False, 0.95, tier.routing, tier.quality, tier.wrong_route) == 0.0
    # Without that rule, 0.30 x 0 + 0.70 x quality.
    assert scoring.two_tier(False, 0.95, tier.routing, tier.quality, None) == pytest.approx(0.665)
    assert scoring.two_tier(None, 0.95, tier.routing, tier.quality, None) is None
    assert scoring.two_tier(True, None, tier.routing, tier.quality, None) is None


def test_presentation_checks(kpi_rag):
    checks = kpi_rag.presentation
    assert scoring.presentation("Revenue was $1,345,000 in June 2025.", checks) == 1.0
    assert scoring.presentation("", checks) == 0.0
    assert scoring.presentation(" ".join(f"word{i}" for i in range(300)), checks) == pytest.approx(0.75)  # > 1500
    assert scoring.presentation("the the the the answer", checks) == pytest.approx(0.75)
    looping = "The answer is: 1.\n\n" * 5
    assert scoring.presentation(looping, checks) == pytest.approx(0.75)
    assert scoring.presentation("<|im_start|>assistant\nRevenue was up.", checks) == pytest.approx(0.75)
    table = "| Month | Revenue |\n|---|---|\n| May 2025 | $1,271,000 |\n| June 2025 | $1,345,000 |"
    assert scoring.presentation(table, checks) == 1.0


def test_forbidden_keywords_are_case_insensitive():
    assert scoring.forbidden_hits("Sunny and 31 °C", ["sunny", "°c", "rain"]) == ["sunny", "°c"]
