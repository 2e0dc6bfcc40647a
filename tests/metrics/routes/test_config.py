"""The routes and router groups compose against their schemas, instantiate, and hold seed 001's numbers."""

from __future__ import annotations

import pytest
from hydra.errors import ConfigCompositionException
from hydra.utils import instantiate

from harness.metrics.routes.suite import RouteSuite
from harness.routers.base import Router
from harness.metrics.routes.table import RouteTable
from tests.conftest import PROJECT_ROOT
from tests.metrics.routes.conftest import composed

CONF = PROJECT_ROOT / "conf"


def options(group: str) -> list[str]:
    return sorted(p.stem for p in (CONF / group).glob("*.yaml"))


def test_groups_have_their_options():
    assert options("routes") == ["kpi_rag", "single"]
    assert options("router") == ["embedding", "fixed", "from_predictions", "keyword"]


def test_defaults_are_single_route_and_fixed_router():
    cfg = composed()
    assert "routes" in cfg.metrics
    assert list(cfg.routes.routes) == ["all"] and cfg.router.route == "all"


@pytest.mark.parametrize("routes", ["single", "kpi_rag"])
@pytest.mark.parametrize("router", ["fixed", "from_predictions", "keyword", "embedding"])
def test_every_routes_and_router_option_instantiates(routes, router):
    cfg = composed(f"routes={routes}", f"router={router}")
    table = instantiate(cfg.routes)
    assert isinstance(table, RouteTable)
    suite = instantiate(cfg.metrics.routes)
    assert isinstance(suite, RouteSuite) and suite.table.routes == table.routes
    assert isinstance(instantiate(cfg.router), Router)


@pytest.mark.parametrize("router", ["fixed", "keyword", "embedding"])
def test_routers_only_return_routes_of_the_kpi_rag_table(router):
    cfg = composed("routes=kpi_rag", f"router={router}")
    assert instantiate(cfg.router).routes() <= set(cfg.routes.routes)


def test_demo_sweep_routes_the_kpi_and_documentation_questions():
    cfg = composed("experiment=demo_sweep")
    assert set(cfg.routes.routes) == {"sales_kpi", "hr_kpi", "rag_docs"}
    assert cfg.router._target_ == "harness.routers.keyword.KeywordRouter"


def test_seed_001_numbers_live_in_the_yaml():
    routes = composed("routes=kpi_rag").routes
    kpi, rag = routes.profiles.kpi, routes.profiles.rag
    assert dict(kpi.weights) == {"semantic_similarity": 0.15, "completeness": 0.25, "factual_accuracy": 0.35,
                                 "presentation": 0.10, "executive_format": 0.15}
    assert dict(rag.weights) == {"semantic_similarity": 0.25, "completeness": 0.30, "factual_accuracy": 0.30,
                                 "presentation": 0.15}
    assert [(c.name, c.weight) for c in kpi.executive_format] == [
        ("numerical_metric", 0.30), ("benchmarking", 0.25), ("trend", 0.25), ("insight", 0.20)]
    assert kpi.executive_format[0].pattern == r"(RM|USD|\$)\s*[\d,]+\.?\d*"
    assert list(kpi.executive_format[1].terms) == ["average", "vs", "compared to", "ranking", "benchmark"]
    assert list(kpi.executive_format[2].terms) == ["trend", "growth", "change", "previous", "increased"]
    assert list(kpi.executive_format[3].terms) == ["insight", "recommendation", "driver", "opportunity"]
    assert [(c.name, c.weight) for c in kpi.semantic_bonuses] == [("benchmarking", 0.10), ("trend", 0.10),
                                                                   ("context", 0.05)]
    assert list(kpi.semantic_bonuses[0].terms) == ["average", "vs", "ranking"]
    assert list(kpi.semantic_bonuses[1].terms) == ["trend", "growth", "change"]
    assert kpi.semantic_bonuses[2].min_chars == 300
    assert (kpi.min_semantic_similarity, rag.min_semantic_similarity, routes.profiles.unrouted.min_semantic_similarity,
            kpi.below_minimum_floor) == (0.50, 0.75, 0.70, 0.3)
    assert (kpi.quality_threshold, rag.quality_threshold) == (0.65, 0.70)
    assert (routes.two_tier.routing, routes.two_tier.quality, routes.two_tier.wrong_route) == (0.30, 0.70, 0.0)


@pytest.mark.parametrize("override, key", [
    ("routes.profiles.kpi.weightz={}", "weightz"),
    ("routes.profiles.kpi.quality_threshold=high", "quality_threshold"),
    ("routes.two_tier.routng=0.3", "routng"),
    ("router.rulez=[]", "rulez"),
    ("metrics.routes.fact_matchr=exact", "fact_matchr"),
])
def test_bad_keys_fail_at_compose_time_naming_the_key(override, key):
    base = ["routes=kpi_rag", "router=keyword"]
    with pytest.raises(ConfigCompositionException) as err:
        composed(*base, override)
    assert key in str(err.value) + str(err.value.__cause__)


def test_a_check_with_an_unknown_field_fails_at_compose_time():
    with pytest.raises(ConfigCompositionException) as err:
        composed("routes=kpi_rag", "routes.presentation=[{name: x, weight: 1, pattrn: y}]")
    assert "pattrn" in str(err.value) + str(err.value.__cause__)


def test_every_profile_says_whether_contexts_vouch_for_figures():
    for routes, expected in [("kpi_rag", {"kpi": False, "rag": True, "unrouted": True}), ("single", {"plain": True})]:
        profiles = composed(f"routes={routes}").routes.profiles
        assert {name: profile.contexts_support for name, profile in profiles.items()} == expected
    cfg = composed("routes=kpi_rag")
    cfg.routes.profiles.kpi.contexts_support = "???"  # a profile that leaves it out
    with pytest.raises(Exception, match=r"routes\.profiles\.kpi\.contexts_support"):
        instantiate(cfg.routes)


def test_behaviour_names_the_dimensions_a_right_behaviour_is_not_held_to():
    assert list(composed("routes=kpi_rag").routes.behaviour.not_applicable_when_detected) == ["executive_format"]
    with pytest.raises(Exception, match=r"unknown dimensions \['formatt'\]"):
        instantiate(composed("routes=kpi_rag", "routes.behaviour.not_applicable_when_detected=[formatt]").routes)


def test_number_rules_no_longer_take_contexts_support():
    with pytest.raises(ConfigCompositionException) as err:
        composed("routes=kpi_rag", "metrics.routes.numbers.contexts_support=true")
    assert "contexts_support" in str(err.value) + str(err.value.__cause__)
