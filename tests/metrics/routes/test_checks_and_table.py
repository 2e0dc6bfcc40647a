"""Text checks and route-table validation: bad YAML values fail naming what is wrong."""

from __future__ import annotations

import pytest

from harness.metrics.routes.checks import TextCheck, build_checks
from harness.metrics.routes.table import RouteProfile, RouteTable

PLAIN = {"semantic_similarity": 0.25, "completeness": 0.30, "factual_accuracy": 0.30, "presentation": 0.15}
SHARED = dict(two_tier={"routing": 0.3, "quality": 0.7, "wrong_route": 0.0},
              presentation=[{"name": "short", "max_chars": 10, "weight": 1.0}],
              behaviour={"clarification_patterns": ["clarify"], "out_of_scope_patterns": ["out of scope"],
                         "detected": 1.0, "missed": 0.0},
              forbidden_keyword_accuracy=0.0)


def table(**changes) -> RouteTable:
    options = dict(routes={"a": "p", "b": "p"}, profiles={"p": {"weights": PLAIN, "quality_threshold": 0.7}},
                   default_route="a", fallback_profile="p", **SHARED)
    options.update(changes)
    return RouteTable(**options)


def test_terms_match_as_substrings_like_the_seed_or_as_whole_words():
    assert TextCheck("t", 0.25, terms=("change",)).passes("the exchange rate")
    assert not TextCheck("t", 0.25, terms=("change",), whole_words=True).passes("the exchange rate")
    assert TextCheck("b", 0.25, terms=("vs",), whole_words=True).passes("June VS May")


def test_negate_and_length_bounds():
    check = TextCheck("no_x", 1.0, pattern="x", negate=True)
    assert check.passes("abc") and not check.passes("xyz")
    assert TextCheck("len", 1.0, min_chars=2, max_chars=3).passes("abc")
    assert not TextCheck("len", 1.0, min_chars=2, max_chars=3).passes("abcd")


@pytest.mark.parametrize("spec, message", [
    ({"name": "c", "weight": 1, "pattern": "("}, "check 'c': invalid pattern"),
    ({"name": "c", "weight": -1, "terms": ["x"]}, "check 'c': weight must be >= 0"),
    ({"name": "c", "weight": 1}, "check 'c': set at least one of"),
    ({"name": "c", "weight": 1, "terms": []}, "check 'c': terms must be a non-empty list"),
    ({"name": "c", "weight": 1, "term": ["x"]}, "unknown keys ['term']"),
])
def test_bad_checks_name_the_check(spec, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace("[", r"\[")):
        build_checks([spec], "test")


def test_duplicate_check_names_refused():
    with pytest.raises(ValueError, match="duplicate check names"):
        build_checks([{"name": "c", "weight": 1, "terms": ["x"]}, {"name": "c", "weight": 1, "terms": ["y"]}], "t")


@pytest.mark.parametrize("weights, message", [
    ({**PLAIN, "presentation": 0.2}, "weights must add up to 1"),
    ({**PLAIN, "fluency": 0.0}, "unknown dimensions ['fluency']"),
    ({"semantic_similarity": 1.5, "completeness": -0.5}, "non-negative"),
])
def test_bad_weights_name_the_profile(weights, message):
    with pytest.raises(ValueError, match=r"profile 'p'.*" + message.replace("[", r"\[")):
        RouteProfile.from_mapping("p", {"weights": weights, "quality_threshold": 0.7})


def test_minimum_needs_a_floor():
    with pytest.raises(ValueError, match="needs below_minimum_floor"):
        RouteProfile.from_mapping("p", {"weights": PLAIN, "quality_threshold": 0.7, "min_semantic_similarity": 0.5})


@pytest.mark.parametrize("changes, message", [
    ({"routes": {"a": "missing"}}, "route 'a' names profile 'missing'"),
    ({"default_route": "z"}, "default_route 'z' is not a route"),
    ({"fallback_profile": "z"}, "fallback_profile 'z'"),
    ({"two_tier": {"routing": 0.3, "quality": 0.6}}, "add up to 1"),
    ({"routes": {}}, "at least one route"),
])
def test_bad_tables_fail_naming_the_key(changes, message):
    with pytest.raises(ValueError, match=message):
        table(**changes)


def test_profiles_for_unknown_and_missing_routes_fall_back():
    routed = table(routes={"a": "p", "b": "q"},
                   profiles={"p": {"weights": PLAIN, "quality_threshold": 0.7},
                             "q": {"weights": PLAIN, "quality_threshold": 0.6}}, fallback_profile="p")
    assert routed.routed
    assert routed.profile_of("b").name == "q"
    assert routed.profile_of("nope").name == "p" and routed.profile_of(None).name == "p"
    assert routed.expected_route("b") == "b" and routed.expected_route(None) is None


def test_one_route_means_no_routing():
    alone = table(routes={"a": "p"})
    assert not alone.routed
    assert alone.expected_route("sales_kpi") == "a" and alone.expected_route(None) == "a"
